// admin_requests.h: the inputs of the admin endpoints, validated. docs/reference/http-contract.md "Admin endpoints (admin token)".
//
//   auto body = parse_json_object_or_reply(req, res);              // http_reply.h: 415 or 400 answered
//   auto account = parse_new_account(*body);                       // POST /admin/accounts
//   if (auto* problem = std::get_if<Problem>(&account)) return reply_problem(res, *problem);
//
// Pure functions, apart from the routes (common_routes.cc) so that they can be tested and fuzzed without a
// server or a database (fuzz/admin_input_fuzz.cc). Each returns the valid input or the 400 that refuses it;
// none throws for any input. What needs the database ("is there such a client?") stays in the route.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "common/problem.h"

namespace lab {

// The limits of the admin endpoints. Each error message is built from its constant, so the two never disagree.
// (POST /admin/clock's advance_ms is bounded by the clock itself: LabClock::kMaxAdvanceMs, kMaxOffsetMs.)
inline constexpr std::size_t kMaxClientNameBytes = 100;   // UTF-8 bytes: a label for a person or team
inline constexpr long long kLedgerPageDefault = 100;      // entries per page when the request names no limit
inline constexpr long long kLedgerPageMax = 1000;         // entries per page: bounds one response (an entry is
                                                          // 0.2 to 2.5 KB of JSON, metadata included)

// The body of every admin POST: application/json (415 otherwise), strict JSON (the money bodies' 400s),
// an object (400 invalid-field otherwise).
std::variant<nlohmann::json, Problem> parse_json_object(std::string_view content_type, std::string_view body);

struct NewAccount {
  std::int64_t client_id = 0;   // 1..2^53 - 1; whether it exists is the route's question
  std::int64_t balance = 0;     // 0..kMaxMinorUnits
  std::string currency;         // is_currency_code
};

// POST /admin/clients {"name"}: the name, 1 to kMaxClientNameBytes bytes.
std::variant<std::string, Problem> parse_new_client(const nlohmann::json& body);
// POST /admin/accounts {"client_id", "balance", "currency"}: ids and balances are JSON integers.
std::variant<NewAccount, Problem> parse_new_account(const nlohmann::json& body);
// POST /admin/clock {"advance_ms"}: 0..LabClock::kMaxAdvanceMs.
std::variant<std::int64_t, Problem> parse_clock_advance(const nlohmann::json& body);

struct LedgerQuery {
  std::int64_t after = 0;                    // the id of the last entry seen, 0 for the first page
  std::int64_t limit = kLedgerPageDefault;   // 1..kLedgerPageMax
};

// GET /admin/ledger?after=ID&limit=N: each parameter's text, or nothing when the query does not name it.
std::variant<LedgerQuery, Problem> parse_ledger_query(const std::optional<std::string>& after,
                                                      const std::optional<std::string>& limit);

}  // namespace lab
