// checks_contract.cc: stage 0, the contract. docs/reference/http-contract.md "The HTTP contract".
//
// Before any lesson is graded the server must speak the contract: health, admin endpoints and their auth,
// and the JSON shape (names and types) of every operation. A failure names the operation, so a learner
// writing a server in another language knows what to fix first; the grader then stops.
#include "grader/checks/check_helpers.h"

namespace grader {
namespace {

using Json = nlohmann::json;

enum class Type { Integer, String, IntegerOrNull, Array };

bool has_type(const Json& j, Type t) {
  switch (t) {
    case Type::Integer:
      return j.is_number_integer();
    case Type::String:
      return j.is_string();
    case Type::IntegerOrNull:
      return j.is_null() || j.is_number_integer();
    case Type::Array:
      return j.is_array();
  }
  return false;
}

const char* type_name(Type t) {
  switch (t) {
    case Type::Integer:
      return "an integer";
    case Type::String:
      return "a string";
    case Type::IntegerOrNull:
      return "an integer or null";
    case Type::Array:
      return "an array";
  }
  return "?";
}

// Parses the body and checks the named members' types; adds a contract-shape finding about `operation`.
std::optional<Json> shape(CheckRun& run, const std::string& operation, const HttpResponse& res, int status,
                          std::initializer_list<std::pair<const char*, Type>> members,
                          const std::string& media = "application/json") {
  std::string got = std::to_string(res.status) + " " + res.header("Content-Type").value_or("(no Content-Type)") +
                    "\n  " + res.body.substr(0, 400);
  auto fail = [&](const std::string& why, const std::string& hint = "") {
    run.add_finding({.anomaly = Anomaly::ContractShape,
                     .what = operation + ": " + why,
                     .operation = operation,
                     .received = got,
                     .hint = hint});
    return std::nullopt;
  };
  if (res.status != status)
    return fail("answered " + std::to_string(res.status) + ", expected " + std::to_string(status));
  if (res.media_type() != media) return fail("Content-Type is not " + media);
  Json j;
  try {
    j = Json::parse(res.body);
  } catch (const Json::exception&) {
    return fail("the body is not JSON");
  }
  if (!j.is_object()) return fail("the body is not a JSON object");
  // A hint of the finding's own, naming the member: the check's hint may speak of another one.
  for (const auto& [member, type] : members)
    if (!j.contains(member) || !has_type(j[member], type))
      return fail(std::string("member \"") + member + "\" is missing or not " + type_name(type),
                  operation + " answers with \"" + member + "\", " + type_name(type));
  return j;
}

void expect_equal(CheckRun& run, const std::string& operation, const Json& body, const char* member, const Json& want) {
  if (body.value(member, Json()) != want)
    run.add_finding({.anomaly = Anomaly::ContractShape,
                     .what = operation + ": \"" + member + "\" is " + body.value(member, Json()).dump() +
                             ", expected " + want.dump(),
                     .operation = operation,
                     .received = body.dump(),
                     .expected = want.dump(),
                     .hint = operation + " answers \"" + member + "\": " + want.dump()});
}

void healthz(CheckRun& run) {
  HttpRequest req{"GET", "/healthz", {}, ""};
  Exchange x = exchange(run.target().address(), req);
  if (!x.response || x.response->status != 200)
    run.add_finding({.anomaly = Anomaly::ContractShape,
                     .what = "GET /healthz did not answer 200",
                     .sent = "GET /healthz",
                     .received = show_exchange(x),
                     .expected = "200"});
}

void admin_auth(CheckRun& run) {
  for (const char* auth : {"", "Bearer not-the-admin-token", "Basic YWRtaW46YWRtaW4="}) {
    HttpRequest req{"POST", "/admin/clients", {{"Content-Type", "application/json"}}, R"({"name":"mallory"})"};
    if (*auth) req.headers.emplace_back("Authorization", auth);
    Exchange x = exchange(run.target().address(), req);
    std::string op = std::string("POST /admin/clients with ") + (*auth ? auth : "no Authorization");
    if (auto j = shape(run, op, x.response.value_or(HttpResponse{}), 401, {{"type", Type::String}},
                       "application/problem+json")) {
      if (problem_type_of(*x.response) != "unauthorized") expect_equal(run, op, *j, "type", "/problems/unauthorized");
      if (x.response->header("WWW-Authenticate").value_or("").rfind("Bearer", 0) != 0)
        run.add_finding({.anomaly = Anomaly::ContractShape,
                         .what = op + ": no \"WWW-Authenticate: Bearer\" header",
                         .operation = op,
                         .received = show_exchange(x)});
    }
  }
}

void admin_clients_and_accounts(CheckRun& run) {
  const std::string name = "carol-" + run.rng().hex(6);
  auto res = run.api().admin("POST", "/admin/clients", Json{{"name", name}}.dump());
  auto client = shape(run, "POST /admin/clients", res, 201,
                      {{"id", Type::Integer}, {"name", Type::String}, {"token", Type::String}});
  if (!client) return;
  expect_equal(run, "POST /admin/clients", *client, "name", name);
  const std::int64_t balance = run.rng().between(1'000, 99'000);
  Json body = {{"client_id", (*client)["id"]}, {"balance", balance}, {"currency", "EUR"}};
  auto account = shape(
      run, "POST /admin/accounts", run.api().admin("POST", "/admin/accounts", body.dump()), 201,
      {{"id", Type::Integer}, {"client_id", Type::Integer}, {"balance", Type::Integer}, {"currency", Type::String}});
  if (!account) return;
  for (const char* m : {"client_id", "balance", "currency"})
    expect_equal(run, "POST /admin/accounts", *account, m, body[m]);
  std::string path = "/accounts/" + std::to_string((*account)["id"].get<std::int64_t>());
  auto got = shape(
      run, "GET /accounts/{id}", run.api().as_client((*client)["token"], "GET", path), 200,
      {{"id", Type::Integer}, {"client_id", Type::Integer}, {"balance", Type::Integer}, {"currency", Type::String}});
  if (got) expect_equal(run, "GET /accounts/{id}", *got, "balance", balance);
}

void money_operation(CheckRun& run, bool transfer) {
  auto [owner, from, to] = client_with_two_accounts(run, "dave");
  const std::int64_t amount = affordable_amount(run, *from);
  Intent& intent =
      transfer ? run.world().transfer(*owner, *from, *to, amount) : run.world().payout(*owner, *from, amount);
  // Metadata belongs to the request: the 201 echoes it, as the same JSON value.
  const Json metadata = {{"order", "A-" + intent.tag}, {"rate", 0.1}, {"lines", Json::array({1, "two"})}};
  intent.body.pop_back();
  intent.body += ",\"metadata\":" + metadata.dump() + "}";
  intent.expect_moves = 1;
  const std::string op = transfer ? "POST /transfers" : "POST /payouts";
  Exchange x = run.settle(intent.attempt());
  if (!x.response) return run.fail(Anomaly::NoResponse, op + ": no response", nullptr, &x);
  auto j = shape(run, op, *x.response, 201,
                 {{"id", Type::Integer},
                  {"kind", Type::String},
                  {"from_account", Type::Integer},
                  {"amount", Type::Integer},
                  {"currency", Type::String},
                  {"memo", Type::String},
                  {"created_at", Type::Integer},
                  {"from_balance_after", Type::Integer}});
  if (!j) return;
  expect_equal(run, op, *j, "kind", transfer ? "transfer" : "payout");
  expect_equal(run, op, *j, "amount", amount);
  expect_equal(run, op, *j, "memo", intent.memo);
  expect_equal(run, op, *j, "metadata", metadata);
  expect_equal(run, op, *j, "from_balance_after", from->opening - amount);
  if (transfer)
    expect_equal(run, op, *j, "to_account", to->id);
  else
    expect_equal(run, op, *j, "destination", intent.destination);
}

void ledger(CheckRun& run) {
  auto [owner, from, to] = client_with_two_accounts(run, "erin");
  Intent& intent = run.world().transfer(*owner, *from, *to, affordable_amount(run, *from));
  const Json metadata = {{"order", "B-" + intent.tag}};
  intent.body.pop_back();
  intent.body += ",\"metadata\":" + metadata.dump() + "}";
  intent.expect_moves = 1;
  run.settle(intent.attempt());
  auto end = run.api().ledger_end();
  const std::string op = "GET /admin/ledger?after=" + std::to_string(end - 1) + "&limit=1";
  auto j = shape(run, op, run.api().admin("GET", "/admin/ledger?after=" + std::to_string(end - 1) + "&limit=1"), 200,
                 {{"entries", Type::Array}, {"next", Type::IntegerOrNull}});
  if (!j) return;
  if ((*j)["entries"].size() != 1)
    return run.add_finding({.anomaly = Anomaly::ContractShape,
                            .what = op + ": expected exactly 1 entry",
                            .operation = op,
                            .received = j->dump()});
  // This is the last page, and it is exactly full: next is null, no empty page follows. A cursor is wrong only
  // if the page it names is empty: on a shared (--url) server another client may have written since.
  if (!(*j)["next"].is_null()) {
    auto after = (*j)["next"].get<std::int64_t>();
    auto following = run.api().admin("GET", "/admin/ledger?after=" + std::to_string(after) + "&limit=1");
    auto page = Json::parse(following.body, nullptr, false);
    if (page.is_object() && page.contains("entries") && page["entries"].empty())
      run.add_finding({.anomaly = Anomaly::ContractShape,
                       .what = op + ": \"next\" is " + std::to_string(after) +
                               " on the last page (exactly full), and the page it names is empty",
                       .operation = op,
                       .received = j->dump(),
                       .expected = "\"next\": null on the last page, also when it holds exactly limit entries",
                       .hint = "\"next\" names a page only when more entries follow: read limit + 1 entries "
                               "to know"});
  }
  HttpResponse entry{200, {{"Content-Type", "application/json"}}, (*j)["entries"][0].dump()};
  auto e = shape(run, op + " entries[0]", entry, 200,
                 {{"id", Type::Integer},
                  {"kind", Type::String},
                  {"from_account", Type::Integer},
                  {"to_account", Type::Integer},
                  {"amount", Type::Integer},
                  {"currency", Type::String},
                  {"memo", Type::String},
                  {"created_at", Type::Integer}});
  if (e) expect_equal(run, op + " entries[0]", *e, "memo", intent.memo);
  if (e) expect_equal(run, op + " entries[0]", *e, "metadata", metadata);
}

void problem_document(CheckRun& run) {
  auto [owner, from, to] = client_with_two_accounts(run, "frank");
  (void)from;
  (void)to;
  const std::string op = "GET /accounts/{an id that is not the caller's}";
  auto res = run.api().as_client(owner->token, "GET", "/accounts/" + std::to_string(from->id + 1'000'000));
  auto j = shape(run, op, res, 404,
                 {{"type", Type::String}, {"title", Type::String}, {"status", Type::Integer}, {"detail", Type::String}},
                 "application/problem+json");
  if (j) expect_equal(run, op, *j, "type", "/problems/not-found");
  if (j) expect_equal(run, op, *j, "status", 404);
}

void lab_clock(CheckRun& run) {
  auto res = run.api().admin("POST", "/admin/clock", R"({"advance_ms":1})");
  if (res.status == 403)
    return run.add_finding({.anomaly = Anomaly::ContractShape,
                            .what = "POST /admin/clock answered 403: start the server with --lab-controls "
                                    "(the grader needs Lab-Delay-Ms, Lab-Crash and the lab clock)",
                            .sent = "POST /admin/clock {\"advance_ms\":1}",
                            .received = res.body,
                            .expected = "200 {\"now_ms\": ...}"});
  shape(run, "POST /admin/clock", res, 200, {{"now_ms", Type::Integer}});
}

}  // namespace

std::vector<Check> contract_checks() {
  return {
      {.name = "stage0.healthz",
       .stage = 0,
       .title = "GET /healthz answers 200",
       .teaches = {"docs/reference/http-contract.md", "The process"},
       .hint = "answer GET /healthz once ready",
       .needs = Needs::Nothing,
       .run = healthz},
      {.name = "stage0.admin-auth",
       .stage = 0,
       .title = "admin endpoints refuse a missing or wrong token with 401 problem+json",
       .teaches = {"docs/reference/http-contract.md", "Authentication"},
       .hint = "compare the bearer token with --admin-token; answer 401 /problems/unauthorized with WWW-Authenticate: "
               "Bearer",
       .needs = Needs::Nothing,
       .run = admin_auth},
      {.name = "stage0.admin-clients-accounts",
       .stage = 0,
       .title = "clients and accounts are created and read with the contract's fields",
       .teaches = {"docs/reference/http-contract.md", "Admin endpoints (admin token)"},
       .hint = "POST /admin/clients, POST /admin/accounts and GET /accounts/{id} return the documented members",
       .needs = Needs::Nothing,
       .run = admin_clients_and_accounts},
      {.name = "stage0.transfer-shape",
       .stage = 0,
       .title = "a transfer answers 201 with the ledger entry and from_balance_after",
       .teaches = {"docs/reference/http-contract.md", "Client endpoints (client token)"},
       .hint = "the 201 body is the ledger entry plus from_balance_after",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { money_operation(r, true); }},
      {.name = "stage0.payout-shape",
       .stage = 0,
       .title = "a payout answers 201 with the ledger entry and from_balance_after",
       .teaches = {"docs/reference/http-contract.md", "Client endpoints (client token)"},
       .hint = "the 201 body is the ledger entry (destination instead of to_account) plus from_balance_after",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { money_operation(r, false); }},
      {.name = "stage0.ledger-shape",
       .stage = 0,
       .title = "GET /admin/ledger pages entries with after, limit and next",
       .teaches = {"docs/reference/http-contract.md", "Admin endpoints (admin token)"},
       .hint = "entries ordered by id; next is the last entry's id while more follow, null on the last page (even a "
               "full one)",
       .needs = Needs::Nothing,
       .run = ledger},
      {.name = "stage0.problem-shape",
       .stage = 0,
       .title = "errors are problem+json documents with type, title, status and detail",
       .teaches = {"docs/reference/http-contract.md", "Errors: problem+json"},
       .hint = "Content-Type: application/problem+json and the four members",
       .needs = Needs::Nothing,
       .run = problem_document},
      {.name = "stage0.lab-clock",
       .stage = 0,
       .title = "POST /admin/clock moves the lab clock (--lab-controls)",
       .teaches = {"docs/reference/plumbing.md", "The lab clock"},
       .hint = "start the server with --lab-controls",
       .needs = Needs::Nothing,
       .run = lab_clock},
  };
}

}  // namespace grader
