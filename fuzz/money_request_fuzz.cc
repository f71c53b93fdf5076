// money_request_fuzz.cc: libFuzzer target for the body validator of POST /transfers and POST /payouts
// (common/money_request.h, common/request_metadata.h). docs/reference/http-contract.md "The HTTP contract", body rules; `make fuzz`.
//
// Input: one byte choosing the endpoint ('p': payouts, anything else: transfers), then the body. Beyond "no crash":
//   - it never throws: the answer is a valid request or a Problem (400, or 413 over 16 KiB);
//   - a valid request keeps every body rule: ids and amount 1..2^53 - 1, to_account != from_account,
//     a currency code, memo <= 200 bytes, destination 1..64 bytes, metadata <= 2 KiB in canonical form,
//     and canonical_body is the body's RFC 8785 form (the fingerprint's input);
//   - an invalid-field problem lists at least one error, and every problem serializes without throwing;
//   - one fingerprint, one verdict: the body's canonical form gets the same answer as the body (the same
//     request, or the same problem type and the same errors), as docs/reference/fingerprint.md promises for 1500 and 1.5e3.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/money_request.h"
#include "common/request_metadata.h"
#include "fuzz/fuzz_require.h"

using lab::fuzz::require;

namespace {

constexpr std::string_view kJson = "application/json";

void require_body_rules(const lab::MoneyRequest& request, std::string_view body) {
  auto in_range = [](std::int64_t value) { return value >= 1 && value <= lab::kMaxMinorUnits; };
  require(in_range(request.from_account) && in_range(request.amount), "from_account and amount are 1..2^53 - 1");
  if (request.endpoint == lab::Endpoint::Transfers) {
    require(request.to_account && in_range(*request.to_account), "a transfer's to_account is 1..2^53 - 1");
    require(*request.to_account != request.from_account, "to_account differs from from_account");
  } else {
    require(!request.destination.empty() && request.destination.size() <= lab::kMaxDestinationBytes,
            "a payout's destination holds 1 to 64 bytes");
  }
  require(lab::is_currency_code(request.currency), "the currency is three upper-case letters");
  require(request.memo.size() <= lab::kMaxMemoBytes, "the memo holds at most 200 bytes");
  require(!request.metadata || request.metadata->size() <= lab::kMaxMetadataBytes, "metadata is at most 2 KiB");
  auto canonical = lab::parse_canonical_json(body);
  require(std::holds_alternative<lab::CanonicalJson>(canonical) &&
              std::get<lab::CanonicalJson>(canonical).text == request.canonical_body,
          "canonical_body is the body's RFC 8785 form");
}

bool same_request(const lab::MoneyRequest& a, const lab::MoneyRequest& b) {
  return a.from_account == b.from_account && a.to_account == b.to_account && a.destination == b.destination &&
         a.amount == b.amount && a.currency == b.currency && a.memo == b.memo && a.metadata == b.metadata &&
         a.canonical_body == b.canonical_body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto endpoint = data[0] == 'p' ? lab::Endpoint::Payouts : lab::Endpoint::Transfers;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto verdict = lab::parse_money_request(kJson, body, endpoint);
  if (auto* request = std::get_if<lab::MoneyRequest>(&verdict)) {
    require_body_rules(*request, body);
  } else {
    const auto& problem = std::get<lab::Problem>(verdict);
    require(problem.status() == 400 || problem.status() == 413, "a refused body is a 400 or a 413");
    if (problem.type == lab::ProblemType::InvalidField) {
      const auto errors = problem.extra.value("errors", nlohmann::json());
      require(errors.is_array() && !errors.empty(), "invalid-field lists its errors");
    }
    (void)problem.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  // One fingerprint, one verdict. Only for bodies that are JSON and within the size limit both ways.
  auto parsed = lab::parse_canonical_json(body);
  auto* canonical = std::get_if<lab::CanonicalJson>(&parsed);
  if (canonical == nullptr || body.size() > lab::kMaxBodyBytes || canonical->text.size() > lab::kMaxBodyBytes)
    return 0;
  auto again = lab::parse_money_request(kJson, canonical->text, endpoint);
  require(verdict.index() == again.index(), "a body and its canonical form are both accepted or both refused");
  if (auto* request = std::get_if<lab::MoneyRequest>(&verdict)) {
    require(same_request(*request, std::get<lab::MoneyRequest>(again)),
            "a body and its canonical form are one request");
  } else {
    const auto& first = std::get<lab::Problem>(verdict);
    const auto& second = std::get<lab::Problem>(again);
    require(first.type == second.type && first.extra == second.extra,
            "a body and its canonical form are refused with one problem and one list of errors");
  }
  return 0;
}
