// http_mutator.cc: the HTTP mutation fuzzer. docs/reference/plumbing.md "Reliability" (Fuzzing); run by `make fuzz`.
//
//   build/fuzz/http_mutator --seconds 12 --server "build/stages/stage6_scope_ttl --port {port} --db {db} ..."
//
// Starts a real server (stage 6 by default, without --lab-controls), makes two clients and four accounts
// through the admin API, then until the time is up sends valid requests (transfers, payouts, admin calls,
// reads), each broken by one mutation (fuzz/http_mutations.h), as raw bytes on a fresh TCP connection. It
// holds the server to three promises:
//   alive      GET /healthz answers 200 after every request;
//   no 5xx     except 503 service-unavailable as problem+json with Retry-After (docs/reference/http-contract.md "Status codes and their order");
//              and every error answer is problem+json (docs/reference/http-contract.md "Errors: problem+json");
//   no money   the ledger holds exactly the transfers and payouts answered 201, and every account's balance
//              is its opening balance moved by those entries: nothing moved without a 2xx.
// It prints the requests sent, a histogram of statuses, the time taken and every anomaly with the bytes that
// caused it. Exit status: 0 clean, 1 anomalies, 2 usage or start-up error.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/http_mutations.h"
#include "grader/report/report.h"
#include "grader/wire/lab_api.h"
#include "grader/wire/target.h"

namespace {

using lab::fuzz::Mutation;
using lab::fuzz::RequestParts;
using nlohmann::json;

constexpr const char* kDefaultServer =
    "build/stages/stage6_scope_ttl --port {port} --db {db} --admin-token {admin_token} --quiet";
// Opening balance of each account, in minor units: far more than thousands of fuzzed transfers of at most
// kMaxAmount can drain, so valid transfers keep reaching the bank's 201 instead of 402.
constexpr std::int64_t kOpeningBalance = 100'000'000;
constexpr std::int64_t kMaxAmount = 500;
// How long the client waits for an answer before it half-closes the connection. A complete request is
// answered in a few milliseconds (no lab delays: no --lab-controls); one cut short would hold the server
// until its read timeout (5 s), so the client says "no more bytes" instead, and the server drops it. A slow
// complete request then runs with its answer lost, like any client that gives up: the audit tells the two
// apart by the memo, which names the request ("fz-<n>").
constexpr std::chrono::milliseconds kAnswerPatience{50};
// After the half-close the server must answer or close: longer than this, it is stuck (an anomaly).
constexpr std::chrono::milliseconds kCloseTimeout{5'000};
constexpr int kMaxAnomaliesShown = 20;

struct Options {
  double seconds = 10;
  std::uint64_t seed = 1;
  std::string server = kDefaultServer;
};

void print_usage() {
  std::printf(
      "Usage: http_mutator [--seconds N] [--seed S] [--server CMD]\n\n"
      "The HTTP mutation fuzzer: starts a server, sends it valid lab requests broken by one mutation each\n"
      "(headers duplicated, removed or garbled; odd methods, targets, Content-Lengths and Idempotency-Keys;\n"
      "flipped bits, non-UTF-8, truncated requests, broken JSON), and checks that the server stays alive,\n"
      "answers no 5xx but a 503 with Retry-After, answers every error as problem+json, and moves no money\n"
      "that it did not answer 201.\n\n"
      "  --seconds N   how long to send requests (default 10)\n"
      "  --seed S      the mutations' random seed (default 1): one seed, one sequence of requests\n"
      "  --server CMD  the server to start, with {port}, {db} and {admin_token} (default:\n"
      "                %s)\n"
      "  --help        this text\n\n"
      "Progress on stderr (a line every 10 s when it is not a terminal); colour only on a terminal and never\n"
      "with NO_COLOR. Exit status 0: no anomaly; 1: anomalies (listed); 2: usage or start-up error.\n"
      "docs/reference/plumbing.md \"Reliability\" (Fuzzing); `make fuzz` runs it after the libFuzzer targets.\n",
      kDefaultServer);
}

// ---------------------------------------------------------------------------------------------
// The world: who may do what, and every answer that created something.
// ---------------------------------------------------------------------------------------------

struct Account {
  std::int64_t id = 0;
  std::string owner_token;   // empty: created by a mutated request whose client's token we never saw
  std::int64_t opening_balance = 0;
};

struct World {
  std::string admin_token;
  std::vector<std::pair<std::int64_t, std::string>> clients;   // id, token
  std::map<std::int64_t, Account> accounts;
  std::vector<std::string> recent_keys;   // for repeats: the same key again, with the same body or another
};

std::string random_key(grader::Rng& rng) { return "fz-" + rng.hex(24); }

// One valid request of a random kind, and the kind's name. Money requests carry the memo "fz-<number>".
std::pair<std::string, RequestParts> valid_request(World& world, std::int64_t number, grader::Rng& rng) {
  const std::string memo = "fz-" + std::to_string(number);
  const auto& [alice_id, alice] = world.clients[0];
  const std::string bearer = "Bearer " + alice;
  const std::string admin = "Bearer " + world.admin_token;
  std::string key = random_key(rng);
  if (!world.recent_keys.empty() && rng.between(0, 4) == 0)
    key = world.recent_keys[rng.between(0, static_cast<std::int64_t>(world.recent_keys.size()) - 1)];
  if (world.recent_keys.size() < 64) world.recent_keys.push_back(key);
  const json amount = rng.between(1, kMaxAmount);
  const grader::Headers money = {{"Authorization", bearer}, {"Content-Type", "application/json"},
                                 {"Idempotency-Key", "\"" + key + "\""}};
  const grader::Headers admin_json = {{"Authorization", admin}, {"Content-Type", "application/json"}};
  switch (rng.between(0, 9)) {
    case 0: case 1: case 2: {
      json body = {{"from_account", 1}, {"to_account", rng.between(2, 4)}, {"amount", amount},
                   {"currency", "USD"}, {"memo", memo}};
      if (rng.between(0, 2) == 0) body["metadata"] = {{"order", rng.hex(8)}, {"n", rng.between(0, 9)}};
      return {"transfer", {"POST", "/transfers", money, body.dump()}};
    }
    case 3: case 4:
      return {"payout", {"POST", "/payouts", money,
                         json{{"from_account", rng.between(1, 2)}, {"amount", amount}, {"currency", "USD"}, {"memo", memo},
                              {"destination", "IBAN DE89 3704 0044 0532 0130 00"}}.dump()}};
    case 5:
      return {"new-client", {"POST", "/admin/clients", admin_json, json{{"name", "fz-" + rng.hex(6)}}.dump()}};
    case 6:
      return {"new-account", {"POST", "/admin/accounts", admin_json,
                              json{{"client_id", alice_id}, {"balance", 1000}, {"currency", "USD"}}.dump()}};
    case 7:
      return {"ledger", {"GET", "/admin/ledger?after=0&limit=5", {{"Authorization", admin}}, ""}};
    case 8:
      return {"clock", {"POST", "/admin/clock", admin_json, json{{"advance_ms", 1000}}.dump()}};
    default:
      return {"account", {"GET", "/accounts/" + std::to_string(rng.between(1, 4)), {{"Authorization", bearer}}, ""}};
  }
}

// ---------------------------------------------------------------------------------------------
// The tally: statuses, the answers that moved money, anomalies.
// ---------------------------------------------------------------------------------------------

struct MoneyAnswer {
  std::int64_t from_account = 0;
  std::int64_t amount = 0;
};

struct Tally {
  std::int64_t requests = 0;
  std::map<std::string, std::int64_t> statuses;   // "201", "400", ..., "none" (no answer)
  std::vector<int> status_of;                      // by request number: its status, 0 for no answer
  std::vector<std::string> mutation_of;            // by request number: "transfer / remove-header Content-Length"
  std::int64_t half_closed = 0;                    // requests not answered within kAnswerPatience
  std::vector<std::string> ran_unanswered;         // of those, the money requests that ran anyway
  std::map<std::int64_t, MoneyAnswer> money_201s;  // ledger id -> what the 201 said
  std::vector<std::string> anomalies;
};

std::string anomaly_text(const std::string& what, const std::string& kind, const Mutation& m,
                         const grader::HttpResponse* res) {
  std::string text = what + "\n      request: " + kind + ", " + m.name + "\n      bytes:   " + lab::fuzz::escaped(m.bytes);
  if (res) text += "\n      answer:  " + std::to_string(res->status) + " " + lab::fuzz::escaped(res->body, 200);
  return text;
}

// What a 201 created, recorded so that the audit knows every account and every movement answered 2xx.
void record_created(World& world, Tally& tally, const grader::HttpResponse& res) {
  json body = json::parse(res.body, nullptr, false);
  if (!body.is_object() || !body.contains("id") || !body["id"].is_number_integer()) return;
  const auto id = body["id"].get<std::int64_t>();
  if (body.contains("kind")) {
    tally.money_201s[id] = {body.value("from_account", std::int64_t{0}), body.value("amount", std::int64_t{0})};
  } else if (body.contains("token")) {
    world.clients.emplace_back(id, body["token"].get<std::string>());
  } else if (body.contains("balance") && body.contains("client_id")) {
    std::string owner;
    for (const auto& [client_id, token] : world.clients)
      if (client_id == body["client_id"].get<std::int64_t>()) owner = token;
    world.accounts[id] = {id, owner, body["balance"].get<std::int64_t>()};
  }
}

// Checks one answer against the promises; returns false if the server is gone.
bool judge(const grader::Address& to, const std::string& kind, const Mutation& m, const grader::Exchange& x,
           World& world, Tally& tally) {
  tally.status_of.push_back(x.response ? x.response->status : 0);
  tally.mutation_of.push_back(kind + " / " + m.name);
  if (x.response) {
    const auto& res = *x.response;
    tally.statuses[std::to_string(res.status)]++;
    const bool problem_json = res.media_type() == "application/problem+json";
    if (res.status >= 500 && !(res.status == 503 && problem_json && res.header("Retry-After")))
      tally.anomalies.push_back(anomaly_text("a 5xx answer", kind, m, &res));
    else if (res.status >= 400 && !problem_json && m.bytes.rfind("HEAD ", 0) != 0)
      tally.anomalies.push_back(anomaly_text("an error answer that is not problem+json", kind, m, &res));
    if (res.status == 201) record_created(world, tally, res);
  } else {
    tally.statuses["none"]++;
    if (x.error.rfind("no response within", 0) == 0)
      tally.anomalies.push_back(anomaly_text("neither an answer nor a close within " +
                                                 std::to_string(kCloseTimeout.count()) + " ms of the half-close",
                                             kind, m, nullptr));
  }
  grader::HttpRequest healthz;
  healthz.target = "/healthz";
  auto health = grader::exchange(to, healthz, kCloseTimeout);
  if (health.response && health.response->status == 200) return true;
  tally.anomalies.push_back(anomaly_text("the server stopped answering GET /healthz (" +
                                             (health.response ? std::to_string(health.response->status) : health.error) +
                                             ")", kind, m, x.response ? &*x.response : nullptr));
  return false;
}

// Sends the bytes on a new connection and reads the answer; see kAnswerPatience for the half-close.
grader::Exchange send_raw(const grader::Address& to, const std::string& bytes, Tally& tally) {
  grader::Exchange x;
  auto connection = grader::Connection::open_patiently(to, grader::kConnectPatience, &x.error);
  if (!connection) return x;
  x.maybe_reached = true;
  bool timed_out = false;
  // A failed send is read too: the server may have answered (413, 414) and closed before taking every byte.
  (void)connection->send_all(bytes, &x.error);
  x.error.clear();
  x.response = connection->read_response(kAnswerPatience, &x.error, &timed_out);
  if (timed_out) {
    ++tally.half_closed;
    connection->finish_sending();
    x.error.clear();
    x.response = connection->read_response(kCloseTimeout, &x.error);
  }
  return x;
}

// ---------------------------------------------------------------------------------------------
// The audit: no money moved without a 2xx.
// ---------------------------------------------------------------------------------------------

void audit_money(grader::LabApi& api, const World& world, Tally& tally) {
  auto ledger = api.ledger_after(0);
  std::map<std::int64_t, std::int64_t> moved;   // account id -> balance change
  std::set<std::int64_t> in_ledger;
  for (const auto& entry : ledger) {
    in_ledger.insert(entry.id);
    auto answered = tally.money_201s.find(entry.id);
    if (answered == tally.money_201s.end()) {
      // Not answered 201: allowed only for a request that got no answer at all (its client gave up).
      const auto number = entry.memo.starts_with("fz-") ? std::atoll(entry.memo.c_str() + 3) : -1;
      const bool known = number >= 0 && number < static_cast<std::int64_t>(tally.status_of.size());
      if (known && tally.status_of[number] == 0)
        tally.ran_unanswered.push_back(tally.mutation_of[number]);
      else
        tally.anomalies.push_back("money moved without a 2xx: ledger entry " + std::to_string(entry.id) + " (" +
                                  entry.kind + " of " + std::to_string(entry.amount) + " from account " +
                                  std::to_string(entry.from_account) + ", memo \"" + entry.memo + "\") " +
                                  (known ? "was answered " + std::to_string(tally.status_of[number])
                                         : "matches no request sent"));
    } else if (answered->second.amount != entry.amount || answered->second.from_account != entry.from_account)
      tally.anomalies.push_back("ledger entry " + std::to_string(entry.id) + " differs from its 201");
    moved[entry.from_account] -= entry.amount;
    if (entry.to_account) moved[*entry.to_account] += entry.amount;
  }
  for (const auto& [id, answer] : tally.money_201s)
    if (!in_ledger.count(id))
      tally.anomalies.push_back("a 201 for ledger entry " + std::to_string(id) + ", which the ledger does not hold");
  for (const auto& [id, account] : world.accounts) {
    if (account.owner_token.empty()) continue;
    const auto balance = api.account(id, account.owner_token).balance;
    const auto expected = account.opening_balance + moved[id];
    if (balance != expected)
      tally.anomalies.push_back("account " + std::to_string(id) + " holds " + std::to_string(balance) +
                                ", its opening balance and the 201s say " + std::to_string(expected));
  }
}

// ---------------------------------------------------------------------------------------------
// The report.
// ---------------------------------------------------------------------------------------------

void print_report(const Tally& tally, double elapsed_seconds, bool colour) {
  std::printf("http_mutator: %lld requests in %.1f s (%.0f/s), each followed by GET /healthz\n",
              static_cast<long long>(tally.requests), elapsed_seconds, tally.requests / elapsed_seconds);
  std::printf("  statuses:");
  for (const auto& [status, count] : tally.statuses) std::printf(" %s x%lld", status.c_str(), static_cast<long long>(count));
  std::printf("\n  waited:   %lld requests not answered within %lld ms were half-closed (cut short, or slow)\n",
              static_cast<long long>(tally.half_closed), static_cast<long long>(kAnswerPatience.count()));
  std::printf("  money:    %zu transfers and payouts answered 201, %zu ran with no answer (half-closed), "
              "nothing else moved\n",
              tally.money_201s.size(), tally.ran_unanswered.size());
  // Not an anomaly (the client gave up, as clients do), but worth a look: a request that is complete runs in
  // milliseconds, so one that ran after the half-close was slow, or was read with bytes after the close.
  for (std::size_t i = 0; i < tally.ran_unanswered.size() && i < 5; ++i)
    std::printf("            ran with no answer: %s\n", tally.ran_unanswered[i].c_str());
  const char* red = colour ? "\033[31m" : "";
  const char* green = colour ? "\033[32m" : "";
  const char* plain = colour ? "\033[0m" : "";
  if (tally.anomalies.empty()) {
    std::printf("  %sno anomaly%s: always alive, no 5xx, every error problem+json, no money moved without a 2xx\n",
                green, plain);
    return;
  }
  std::printf("  %s%zu anomalies%s:\n", red, tally.anomalies.size(), plain);
  for (std::size_t i = 0; i < tally.anomalies.size() && i < kMaxAnomaliesShown; ++i)
    std::printf("    %s\n", tally.anomalies[i].c_str());
}

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    try {
      if (arg == "--help" || arg == "-h") {
        print_usage();
        std::exit(0);
      } else if (arg == "--seconds") {
        o.seconds = std::stod(value());
      } else if (arg == "--seed") {
        o.seed = std::stoull(value());
      } else if (arg == "--server") {
        o.server = value();
      } else {
        std::fprintf(stderr, "http_mutator: unknown option '%s'\n", arg.c_str());
        return false;
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "http_mutator: %s takes a number\n", arg.c_str());
      return false;
    }
  }
  if (o.seconds <= 0 || o.server.empty()) {
    std::fprintf(stderr, "http_mutator: --seconds must be positive and --server not empty\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) {
    std::fprintf(stderr, "Try 'http_mutator --help'.\n");
    return 2;
  }
  grader::kill_servers_on_signal();
  std::unique_ptr<grader::Target> target;
  World world;
  try {
    target = grader::Target::launch(options.server, {});
    grader::LabApi api(*target);
    world.admin_token = target->admin_token();
    for (const char* name : {"fz-alice", "fz-bob"}) {
      auto client = api.create_client(name);
      world.clients.emplace_back(client.id, client.token);
    }
    // Accounts 1 and 2 (alice, USD), 3 (bob, USD), 4 (alice, EUR: a currency mismatch for transfers to it).
    for (auto [owner, currency] : {std::pair{0, "USD"}, {0, "USD"}, {1, "USD"}, {0, "EUR"}}) {
      auto account = api.create_account(world.clients[owner].first, kOpeningBalance, currency);
      world.accounts[account.id] = {account.id, world.clients[owner].second, kOpeningBalance};
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "http_mutator: cannot set up the server: %s\n", e.what());
    if (target) std::fprintf(stderr, "%s", target->stderr_tail().c_str());
    return 2;
  }

  const bool terminal = isatty(STDERR_FILENO) != 0;
  grader::Rng rng(options.seed);
  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(options.seconds);
  auto next_progress = start + std::chrono::seconds(terminal ? 1 : 10);
  bool alive = true;
  while (alive && std::chrono::steady_clock::now() < deadline) {
    auto [kind, request] = valid_request(world, tally.requests, rng);
    Mutation m = lab::fuzz::mutate(std::move(request), target->address(), rng);
    auto x = send_raw(target->address(), m.bytes, tally);
    ++tally.requests;
    alive = judge(target->address(), kind, m, x, world, tally);
    if (auto now = std::chrono::steady_clock::now(); now >= next_progress) {
      next_progress = now + std::chrono::seconds(terminal ? 1 : 10);
      std::fprintf(stderr, "%s  http_mutator: %.0f s of %.0f, %lld requests, %zu anomalies%s",
                   terminal ? "\r" : "", std::chrono::duration<double>(now - start).count(), options.seconds,
                   static_cast<long long>(tally.requests), tally.anomalies.size(), terminal ? "   " : "\n");
    }
  }
  if (terminal) std::fprintf(stderr, "\r%70s\r", "");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (alive) {
    try {
      grader::LabApi api(*target);
      audit_money(api, world, tally);
    } catch (const std::exception& e) {
      tally.anomalies.push_back(std::string("the audit could not read the ledger or a balance: ") + e.what());
    }
  } else {
    tally.anomalies.push_back("the server's stderr:\n" + target->stderr_tail());
  }
  print_report(tally, elapsed, grader::use_colour(STDOUT_FILENO));
  target->stop();
  return tally.anomalies.empty() ? 0 : 1;
}
