// admin_requests.cc: see admin_requests.h.
#include "common/admin_requests.h"

#include <charconv>

#include "common/canonical_json.h"
#include "common/field_errors.h"
#include "common/lab_clock.h"
#include "common/money_request.h"

namespace lab {
namespace {

using nlohmann::json;

// A JSON integer from min to max. Ids, balances and clock steps are counted, so unlike an amount (any spelling
// of an integral value, money_request.cc:positive_integer) they must be written as integers: 1.0 is refused.
bool is_whole(const json& v, long long min, long long max) {
  return v.is_number_integer() && !(v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) &&
         v.get<long long>() >= min && v.get<long long>() <= max;
}

// A query parameter's digits as a number from 0 up; nothing for anything else (a sign, a space, trailing text).
std::optional<long long> query_number(const std::optional<std::string>& text, long long fallback) {
  if (!text) return fallback;
  long long value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::variant<json, Problem> parse_json_object(std::string_view content_type, std::string_view body) {
  if (!is_json_media_type(content_type))
    return Problem::Of(ProblemType::UnsupportedMediaType, "expected Content-Type: application/json");
  auto parsed = parse_canonical_json(body);
  if (auto* error = std::get_if<JsonError>(&parsed)) return json_problem(*error);
  auto& value = std::get<CanonicalJson>(parsed).value;
  if (!value.is_object()) return field_problem("(body)", "must be a JSON object");
  return std::move(value);
}

std::variant<std::string, Problem> parse_new_client(const json& body) {
  auto name = body.find("name");
  if (name == body.end() || !name->is_string() || name->get<std::string>().empty() ||
      name->get<std::string>().size() > kMaxClientNameBytes)
    return field_problem("name", "must be a string of 1 to " + std::to_string(kMaxClientNameBytes) + " bytes");
  return name->get<std::string>();
}

std::variant<NewAccount, Problem> parse_new_account(const json& body) {
  if (!body.contains("client_id") || !is_whole(body["client_id"], 1, kMaxExactJsonInteger))
    return field_problem("client_id", "must be a client id");
  if (!body.contains("balance") || !is_whole(body["balance"], 0, kMaxMinorUnits))
    return field_problem("balance", "must be an integer from 0 to 2^53 - 1 (minor units)");
  if (!body.contains("currency") || !body["currency"].is_string() ||
      !is_currency_code(body["currency"].get<std::string>()))
    return field_problem("currency", kCurrencyCodeRule);
  return NewAccount{body["client_id"].get<std::int64_t>(), body["balance"].get<std::int64_t>(),
                    body["currency"].get<std::string>()};
}

std::variant<std::int64_t, Problem> parse_clock_advance(const json& body) {
  if (!body.contains("advance_ms") || !is_whole(body["advance_ms"], 0, LabClock::kMaxAdvanceMs))
    return field_problem("advance_ms", "must be a whole number of milliseconds from 0 to " +
                                           std::to_string(LabClock::kMaxAdvanceMs));
  return body["advance_ms"].get<std::int64_t>();
}

std::variant<LedgerQuery, Problem> parse_ledger_query(const std::optional<std::string>& after_text,
                                                      const std::optional<std::string>& limit_text) {
  auto after = query_number(after_text, 0);
  auto limit = query_number(limit_text, kLedgerPageDefault);
  FieldErrors errors;
  if (!after) errors.add("after", "must be a whole number: the id of the last entry seen, 0 for the first page");
  if (!limit || *limit < 1 || *limit > kLedgerPageMax)
    errors.add("limit", "must be a whole number of entries from 1 to " + std::to_string(kLedgerPageMax));
  if (!errors.empty()) return errors.to_problem();
  return LedgerQuery{*after, *limit};
}

}  // namespace lab
