// money_request.cc: see money_request.h.
#include "common/money_request.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/canonical_json.h"
#include "common/field_errors.h"
#include "common/request_metadata.h"

namespace lab {
namespace {

using nlohmann::json;

ProblemType problem_type_for(JsonRejection why) {
  switch (why) {
    case JsonRejection::Syntax: return ProblemType::JsonSyntax;
    case JsonRejection::DuplicateMember: return ProblemType::JsonDuplicateMember;
    case JsonRejection::InvalidUtf8: return ProblemType::JsonInvalidUtf8;
    case JsonRejection::LoneSurrogate: return ProblemType::JsonLoneSurrogate;
    case JsonRejection::NumberOutOfRange: return ProblemType::JsonNumberOutOfRange;
    case JsonRejection::TooDeep: return ProblemType::JsonTooDeep;
  }
  return ProblemType::JsonSyntax;
}

// A positive integer of at most kMaxMinorUnits, in any JSON spelling of that integer: 1500, 1500.0, 1.5e3
// and 15E2 are one number. Money is counted, not measured, so 1500.5 is refused; but whether a number is
// integral is a question about its value, not its spelling. The decision is made on the value parsed (for a
// fraction or exponent, the IEEE-754 double nearest the spelling, the value RFC 8785 canonicalizes), never
// on the text: the fingerprint sees only that value, so two bodies with one canonical form, and hence one
// fingerprint, must never be one accepted and one refused, nor name two different amounts. It follows that
// 1500.0000000000000001, whose nearest double is 1500, is 1500. Below 2^53 every integer is a double
// exactly, so an integral double in 1..kMaxMinorUnits converts to std::int64_t without loss.
std::optional<std::int64_t> positive_integer(const json& body, const char* field, FieldErrors& errors) {
  constexpr const char* kWhat = "must be a number with an integral value (1500, 1500.0 or 1.5e3)";
  auto it = body.find(field);
  if (it == body.end()) {
    errors.add(field, "is required");
    return std::nullopt;
  }
  if (!it->is_number()) {
    errors.add(field, kWhat);
    return std::nullopt;
  }
  // The integer spellings nlohmann keeps exact, unsigned ones up to 2^64 - 1: compared as integers, so
  // 9007199254740993 (which a double would round to 2^53) is refused as too large, not mistaken for 2^53.
  if (it->is_number_unsigned()) {
    if (it->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxMinorUnits)) {
      errors.add(field, "must be at most 2^53 - 1");
      return std::nullopt;
    }
  } else if (it->is_number_integer()) {
    if (it->get<std::int64_t>() > kMaxMinorUnits) {
      errors.add(field, "must be at most 2^53 - 1");
      return std::nullopt;
    }
  } else {
    const double value = it->get<double>();   // finite: the strict parser refuses what overflows a double
    if (value != std::trunc(value)) {
      errors.add(field, kWhat);
      return std::nullopt;
    }
    if (value > static_cast<double>(kMaxMinorUnits)) {
      errors.add(field, "must be at most 2^53 - 1");
      return std::nullopt;
    }
    if (value < 1) {   // 0.0 and -0 too: zero is not positive whatever its sign
      errors.add(field, "must be positive");
      return std::nullopt;
    }
    return static_cast<std::int64_t>(value);
  }
  if (it->get<std::int64_t>() < 1) {
    errors.add(field, "must be positive");
    return std::nullopt;
  }
  return it->get<std::int64_t>();
}

// How a string field is checked. Designated initializers name each choice at the call:
//   text_field(body, "memo", {.required = false, .max_bytes = kMaxMemoBytes}, errors)
struct TextRule {
  bool required;           // absent: "is required" if required, else the field reads as ""
  std::size_t max_bytes;   // the longest accepted value, in UTF-8 bytes
};

std::optional<std::string> text_field(const json& body, const char* field, TextRule rule, FieldErrors& errors) {
  auto it = body.find(field);
  if (it == body.end()) {
    if (rule.required) errors.add(field, "is required");
    return rule.required ? std::nullopt : std::optional<std::string>("");
  }
  if (!it->is_string()) {
    errors.add(field, "must be a string");
    return std::nullopt;
  }
  auto value = it->get<std::string>();
  if (value.size() > rule.max_bytes) {
    errors.add(field, "must be at most " + std::to_string(rule.max_bytes) + " bytes");
    return std::nullopt;
  }
  return value;
}

// A currency is a code, not free text: its one rule (kCurrencyCodeRule) is the reason for every wrong
// value, so "EURO" is told what a currency code is, not that it is one byte too long.
std::optional<std::string> currency_field(const json& body, FieldErrors& errors) {
  auto it = body.find("currency");
  if (it == body.end()) {
    errors.add("currency", "is required");
    return std::nullopt;
  }
  if (!it->is_string() || !is_currency_code(it->get<std::string>())) {
    errors.add("currency", kCurrencyCodeRule);
    return std::nullopt;
  }
  return it->get<std::string>();
}

}  // namespace

Problem json_problem(const JsonError& error) { return Problem::Of(problem_type_for(error.why), error.detail); }

std::string_view path_of(Endpoint endpoint) { return endpoint == Endpoint::Transfers ? "/transfers" : "/payouts"; }
std::string_view kind_of(Endpoint endpoint) { return endpoint == Endpoint::Transfers ? "transfer" : "payout"; }

bool is_json_media_type(std::string_view content_type) {
  auto end = content_type.find(';');   // parameters such as charset=utf-8 are fine
  std::string media(content_type.substr(0, end));
  media.erase(std::remove_if(media.begin(), media.end(), [](unsigned char c) { return std::isspace(c); }),
              media.end());
  std::transform(media.begin(), media.end(), media.begin(), [](unsigned char c) { return std::tolower(c); });
  return media == "application/json";
}

bool is_currency_code(std::string_view text) {
  return text.size() == 3 && std::all_of(text.begin(), text.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

std::variant<MoneyRequest, Problem> parse_money_request(std::string_view content_type, std::string_view body,
                                                        Endpoint endpoint) {
  if (!is_json_media_type(content_type))
    return Problem::Of(ProblemType::UnsupportedMediaType,
                       "Content-Type is \"" + std::string(content_type) + "\", expected application/json");
  if (body.size() > kMaxBodyBytes)
    return Problem::Of(ProblemType::BodyTooLarge, "body has " + std::to_string(body.size()) +
                                                      " bytes, the limit is " + std::to_string(kMaxBodyBytes));
  auto parsed = parse_canonical_json(body);
  if (auto* error = std::get_if<JsonError>(&parsed)) return json_problem(*error);
  auto& [document, canonical] = std::get<CanonicalJson>(parsed);

  FieldErrors errors;
  if (!document.is_object()) {
    errors.add("(body)", "must be a JSON object");
    return errors.to_problem();
  }
  const bool is_transfer = endpoint == Endpoint::Transfers;
  for (const auto& [name, value] : document.items()) {
    static constexpr std::string_view kTransferFields[] = {"from_account", "to_account", "amount", "currency", "memo",
                                                           "metadata"};
    static constexpr std::string_view kPayoutFields[] = {"from_account", "destination", "amount", "currency", "memo",
                                                         "metadata"};
    const auto& known = is_transfer ? kTransferFields : kPayoutFields;
    if (std::find(std::begin(known), std::end(known), name) == std::end(known)) errors.add(name, "is not a known field");
  }

  MoneyRequest request;
  request.endpoint = endpoint;
  auto from = positive_integer(document, "from_account", errors);
  auto amount = positive_integer(document, "amount", errors);
  auto currency = currency_field(document, errors);
  auto memo = text_field(document, "memo", {.required = false, .max_bytes = kMaxMemoBytes}, errors);
  if (is_transfer) {
    request.to_account = positive_integer(document, "to_account", errors);
    if (from && request.to_account && *from == *request.to_account)
      errors.add("to_account", "must differ from from_account");
  } else {
    auto destination =
        text_field(document, "destination", {.required = true, .max_bytes = kMaxDestinationBytes}, errors);
    if (destination && destination->empty()) errors.add("destination", "must not be empty");
    if (destination) request.destination = *destination;
  }
  if (auto metadata = document.find("metadata"); metadata != document.end()) {
    for (const auto& reason : metadata_faults(*metadata)) errors.add("metadata", reason);
    // Stored in canonical form: one spelling per value, so the ledger and the replayed 201 do not depend on
    // how the first client happened to write it.
    request.metadata = canonicalize(*metadata);
  }
  if (!errors.empty()) return errors.to_problem();

  request.from_account = *from;
  request.amount = *amount;
  request.currency = *currency;
  request.memo = *memo;
  request.canonical_body = std::move(canonical);
  return request;
}

std::optional<MoneyRequest> parse_money_request_or_reply(const httplib::Request& req, httplib::Response& res,
                                                         Endpoint endpoint) {
  auto result = parse_money_request(req.get_header_value("Content-Type"), req.body, endpoint);
  if (auto* problem = std::get_if<Problem>(&result)) {
    reply_problem(res, *problem);
    return std::nullopt;
  }
  return std::get<MoneyRequest>(std::move(result));
}

}  // namespace lab
