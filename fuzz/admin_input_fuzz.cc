// admin_input_fuzz.cc: libFuzzer target for the inputs of the admin endpoints (common/admin_requests.h):
// the JSON bodies of POST /admin/clients, /admin/accounts, /admin/clock and the query of GET /admin/ledger.
// docs/reference/http-contract.md "Admin endpoints (admin token)"; run by `make fuzz`.
//
// Input: any bytes. As a body, they go through parse_json_object and, when they are an object, through all
// three body parsers; split at the first '\n', they are the ledger's `after` and `limit` texts (no '\n':
// `limit` is absent). Beyond "no crash":
//   - nothing throws: every refusal is a Problem, and it is a 400 (json-* or invalid-field);
//   - what is accepted is inside the contract: a name of 1 to 100 bytes; client_id 1..2^53 - 1, balance
//     0..2^53 - 1, a currency code; advance_ms 0..LabClock::kMaxAdvanceMs; after >= 0 and limit 1..1000.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/admin_requests.h"
#include "common/lab_clock.h"
#include "common/money_request.h"
#include "fuzz/fuzz_require.h"

using lab::fuzz::require;

namespace {

// The accepted value inside result (which must outlive the pointer), or nullptr for a refusal, checked.
template <typename T>
const T* accepted(const std::variant<T, lab::Problem>& result) {
  if (auto* problem = std::get_if<lab::Problem>(&result)) {
    require(problem->status() == 400, "a refused admin input is a 400");
    (void)problem->to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return nullptr;
  }
  return &std::get<T>(result);
}

void fuzz_bodies(std::string_view bytes) {
  const auto parsed = lab::parse_json_object("application/json", bytes);
  auto body = accepted(parsed);
  if (body == nullptr) return;
  require(body->is_object(), "an accepted admin body is an object");
  const auto client = lab::parse_new_client(*body);
  if (auto name = accepted(client))
    require(!name->empty() && name->size() <= lab::kMaxClientNameBytes, "a client name holds 1 to 100 bytes");
  const auto new_account = lab::parse_new_account(*body);
  if (auto account = accepted(new_account)) {
    require(account->client_id >= 1 && account->client_id <= lab::kMaxExactJsonInteger, "client_id 1..2^53 - 1");
    require(account->balance >= 0 && account->balance <= lab::kMaxMinorUnits, "balance 0..2^53 - 1");
    require(lab::is_currency_code(account->currency), "an account's currency is a currency code");
  }
  const auto clock = lab::parse_clock_advance(*body);
  if (auto advance_ms = accepted(clock))
    require(*advance_ms >= 0 && *advance_ms <= lab::LabClock::kMaxAdvanceMs, "advance_ms 0..kMaxAdvanceMs");
}

void fuzz_ledger_query(std::string_view bytes) {
  auto newline = bytes.find('\n');
  std::optional<std::string> after(bytes.substr(0, newline));
  std::optional<std::string> limit;
  if (newline != std::string_view::npos) limit = std::string(bytes.substr(newline + 1));
  const auto parsed = lab::parse_ledger_query(after, limit);
  if (auto query = accepted(parsed))
    require(query->after >= 0 && query->limit >= 1 && query->limit <= lab::kLedgerPageMax,
            "a ledger query has after >= 0 and limit 1..1000");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz_bodies(bytes);
  fuzz_ledger_query(bytes);
  return 0;
}
