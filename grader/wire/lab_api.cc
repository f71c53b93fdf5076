// lab_api.cc: see lab_api.h.
#include "grader/wire/lab_api.h"

#include "grader/wire/wire.h"

namespace grader {
namespace {

// Entries per ledger page: as many as fit the grader's cap on one answer, at the largest an entry can be
// (2.5 KB with its metadata: kLedgerPageMax's comment in common/admin_requests.h).
constexpr int kLedgerPage = 200;
constexpr std::size_t kLedgerEntryMostBytes = 2560;
static_assert(kLedgerPage * kLedgerEntryMostBytes + 4096 < kMaxResponseBytes, "a full ledger page must fit one answer");

std::string shown(const std::string& body) { return body.size() > 300 ? body.substr(0, 300) + "..." : body; }

std::int64_t integer_or_throw(const nlohmann::json& j, const char* field, const std::string& call) {
  if (!j.contains(field) || !j[field].is_number_integer())
    throw ApiError(call + ": the answer has no integer \"" + field + "\": " + j.dump());
  return j[field].get<std::int64_t>();
}

std::string string_or_throw(const nlohmann::json& j, const char* field, const std::string& call) {
  if (!j.contains(field) || !j[field].is_string())
    throw ApiError(call + ": the answer has no string \"" + field + "\": " + j.dump());
  return j[field].get<std::string>();
}

HttpResponse expect_status(HttpResponse res, int status, const std::string& call) {
  if (res.status != status)
    throw ApiError(call + " answered " + std::to_string(res.status) + ", expected " + std::to_string(status) + ": " +
                   shown(res.body));
  return res;
}

[[noreturn]] void throw_no_response(const std::string& call, const Exchange& x) {
  ApiError error(call + ": no response (" + x.error + ")");
  error.no_response = true;
  throw error;
}

}  // namespace

nlohmann::json json_body_or_throw(const HttpResponse& res, const std::string& call) {
  try {
    return nlohmann::json::parse(res.body);
  } catch (const nlohmann::json::exception&) {
    throw ApiError(call + ": the body is not JSON: " + shown(res.body));
  }
}

// No admin or read call asks for a 503. One that comes while the caller's requests are being served is
// said with that count: the server may fail a request that overlaps another (grader/record/overlap.h).
void LabApi::refuse_busy_beside_requests(const std::string& call, const HttpResponse& res) const {
  if (res.status != 503 || !being_served_) return;
  const int beside = being_served_();
  if (beside == 0) return;
  ApiError error(call + " answered 503 while " + std::to_string(beside) + " request" + (beside == 1 ? "" : "s") +
                 " of this check " + (beside == 1 ? "was" : "were") + " being served: " + shown(res.body));
  error.requests_being_served = beside;
  throw error;
}

HttpResponse LabApi::admin(const std::string& method, const std::string& path, const std::string& body) {
  HttpRequest req{method, path, {{"Authorization", "Bearer " + target_.admin_token()}}, body};
  if (!body.empty()) req.headers.emplace_back("Content-Type", "application/json");
  Exchange x = exchange(target_.address(), req);
  if (!x.response) throw_no_response(method + " " + path, x);
  refuse_busy_beside_requests(method + " " + path, *x.response);
  return *x.response;
}

HttpResponse LabApi::as_client(const std::string& token, const std::string& method, const std::string& path) {
  HttpRequest req{method, path, {{"Authorization", "Bearer " + token}}, ""};
  Exchange x = exchange(target_.address(), req);
  if (!x.response) throw_no_response(method + " " + path, x);
  refuse_busy_beside_requests(method + " " + path, *x.response);
  return *x.response;
}

ClientInfo LabApi::create_client(const std::string& name) {
  const std::string call = "POST /admin/clients";
  auto j = json_body_or_throw(
      expect_status(admin("POST", "/admin/clients", nlohmann::json{{"name", name}}.dump()), 201, call), call);
  return {integer_or_throw(j, "id", call), name, string_or_throw(j, "token", call)};
}

AccountInfo LabApi::create_account(std::int64_t client_id, std::int64_t balance, const std::string& currency) {
  const std::string call = "POST /admin/accounts";
  nlohmann::json body = {{"client_id", client_id}, {"balance", balance}, {"currency", currency}};
  auto j = json_body_or_throw(expect_status(admin("POST", "/admin/accounts", body.dump()), 201, call), call);
  return {integer_or_throw(j, "id", call), client_id, balance, currency};
}

AccountInfo LabApi::account(std::int64_t id, const std::string& owner_token) {
  const std::string call = "GET /accounts/" + std::to_string(id);
  auto j = json_body_or_throw(
      expect_status(as_client(owner_token, "GET", "/accounts/" + std::to_string(id)), 200, call), call);
  return {integer_or_throw(j, "id", call), integer_or_throw(j, "client_id", call), integer_or_throw(j, "balance", call),
          string_or_throw(j, "currency", call)};
}

std::vector<LedgerEntry> LabApi::ledger_after(std::int64_t after_id) {
  std::vector<LedgerEntry> entries;
  for (;;) {
    std::string path = "/admin/ledger?after=" + std::to_string(after_id) + "&limit=" + std::to_string(kLedgerPage);
    const std::string call = "GET " + path;
    auto j = json_body_or_throw(expect_status(admin("GET", path), 200, call), call);
    if (!j.contains("entries") || !j["entries"].is_array()) throw ApiError(call + ": no \"entries\" array");
    for (const auto& e : j["entries"]) {
      LedgerEntry entry;
      entry.id = integer_or_throw(e, "id", call);
      entry.kind = string_or_throw(e, "kind", call);
      entry.from_account = integer_or_throw(e, "from_account", call);
      if (e.contains("to_account") && e["to_account"].is_number_integer())
        entry.to_account = e["to_account"].get<std::int64_t>();
      if (e.contains("destination") && e["destination"].is_string())
        entry.destination = e["destination"].get<std::string>();
      entry.amount = integer_or_throw(e, "amount", call);
      entry.currency = string_or_throw(e, "currency", call);
      if (e.contains("memo") && e["memo"].is_string()) entry.memo = e["memo"].get<std::string>();
      if (e.contains("created_at") && e["created_at"].is_number_integer())
        entry.created_at = e["created_at"].get<std::int64_t>();
      entries.push_back(std::move(entry));
    }
    if (!j.contains("next") || j["next"].is_null()) return entries;
    if (!j["next"].is_number_integer()) throw ApiError(call + ": \"next\" is neither an id nor null");
    std::int64_t next = j["next"].get<std::int64_t>();
    if (next <= after_id) throw ApiError(call + ": \"next\" does not move forward");
    after_id = next;
  }
}

std::int64_t LabApi::ledger_end(std::int64_t known_end) {
  auto entries = ledger_after(known_end);
  return entries.empty() ? known_end : entries.back().id;
}

std::int64_t LabApi::advance_clock_ms(std::int64_t ms) {
  const std::string call = "POST /admin/clock";
  auto res = admin("POST", "/admin/clock", nlohmann::json{{"advance_ms", ms}}.dump());
  if (res.status == 403) throw ApiError(call + " answered 403: start the server with --lab-controls");
  auto j = json_body_or_throw(expect_status(res, 200, call), call);
  return integer_or_throw(j, "now_ms", call);
}

}  // namespace grader
