// lab_api.h: the admin and read calls the grader makes to set up a check and to judge it.
// docs/reference/http-contract.md "Admin endpoints (admin token)", docs/reference/http-contract.md "Client endpoints (client token)".
//
//   LabApi api(target);
//   auto alice = api.create_client("alice-3f2a");              // POST /admin/clients
//   auto acct = api.create_account(alice.id, 50'000, "USD");   // POST /admin/accounts
//   auto entries = api.ledger_after(cursor);                   // GET /admin/ledger, every page
//   api.advance_clock_ms(31'000);                              // POST /admin/clock
//
// These calls are not part of the history: they set up and observe, they are not the client under test.
// A call that fails throws ApiError with what was sent and what came back. Thread safety: none needed; it
// holds only a reference to the Target.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "grader/wire/target.h"

namespace grader {

struct ApiError : std::runtime_error {
  using std::runtime_error::runtime_error;
  // A 503 answered to this call while requests the grader had sent were still being served (set_being_served):
  // the server may fail a request that overlaps another, which the finding says instead of a contract fault.
  int requests_being_served = 0;
  // No answer came at all (not a wrong one): the server may have hung, which is no fault of the call's shape.
  bool no_response = false;
};

struct ClientInfo {
  std::int64_t id = 0;
  std::string name;
  std::string token;
};

struct AccountInfo {
  std::int64_t id = 0;
  std::int64_t client_id = 0;
  std::int64_t balance = 0;
  std::string currency;
};

struct LedgerEntry {
  std::int64_t id = 0;
  std::string kind;  // "transfer" or "payout"
  std::int64_t from_account = 0;
  std::optional<std::int64_t> to_account;  // transfers
  std::string destination;                 // payouts
  std::int64_t amount = 0;
  std::string currency;
  std::string memo;
  std::int64_t created_at = 0;  // ms on the lab clock
};

class LabApi {
 public:
  explicit LabApi(Target& target) : target_(target) {}

  // One admin request; throws ApiError when no response comes.
  HttpResponse admin(const std::string& method, const std::string& target, const std::string& body = "");
  // One request with a client token and no history (reads only).
  HttpResponse as_client(const std::string& token, const std::string& method, const std::string& target);

  ClientInfo create_client(const std::string& name);
  AccountInfo create_account(std::int64_t client_id, std::int64_t balance, const std::string& currency);
  AccountInfo account(std::int64_t id, const std::string& owner_token);
  std::vector<LedgerEntry> ledger_after(std::int64_t after_id);
  std::int64_t ledger_end(std::int64_t known_end = 0);  // the highest entry id now, paging from known_end
  std::int64_t advance_clock_ms(std::int64_t ms);
  // How many requests of the caller's are being served now, asked when a call is answered 503.
  void set_being_served(std::function<int()> count) { being_served_ = std::move(count); }

 private:
  void refuse_busy_beside_requests(const std::string& call, const HttpResponse& res) const;
  Target& target_;
  std::function<int()> being_served_;
};

// Parses a JSON body or throws ApiError naming the call.
nlohmann::json json_body_or_throw(const HttpResponse& res, const std::string& call);

}  // namespace grader
