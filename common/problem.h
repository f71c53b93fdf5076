// problem.h: errors as values, answered as RFC 9457 problem+json. docs/reference/http-contract.md "Errors: problem+json".
//
// Every error the lab answers has a registered type (kProblemRegistry): a stable slug, its HTTP status
// and a title. The type URI is the relative reference "/problems/<slug>", and each server serves the
// registry itself at GET /problems, so a learner can look any type up.
//
//   Problem p = Problem::Of(ProblemType::InsufficientFunds, "account 7 holds 300, needs 500");
//   reply_problem(res, p);   // status 402, Content-Type: application/problem+json
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace httplib { struct Response; }

namespace lab {

enum class ProblemType {
  Unauthorized,
  IdempotencyKeyMissing,
  IdempotencyKeyEmpty,
  IdempotencyKeyList,
  IdempotencyKeyParameters,
  IdempotencyKeyRepeatedHeader,
  IdempotencyKeyTooLong,
  IdempotencyKeyMalformed,
  UnsupportedMediaType,
  BodyTooLarge,
  JsonSyntax,
  JsonDuplicateMember,
  JsonInvalidUtf8,
  JsonLoneSurrogate,
  JsonNumberOutOfRange,
  JsonTooDeep,
  InvalidField,
  RequestInProgress,
  IdempotencyKeyReused,
  NotFound,
  CurrencyMismatch,
  InsufficientFunds,
  BalanceLimit,
  RouteNotFound,
  MalformedRequest,
  UriTooLong,
  RangeNotSatisfiable,
  LengthRequired,
  UnsupportedContentEncoding,
  RequestHeadTooLarge,
  RequestTimeout,
  LabControlsDisabled,
  ServiceUnavailable,
  InternalError,
};

struct ProblemTypeInfo {
  ProblemType type;
  std::string_view slug;    // the last segment of the type URI
  int status;
  std::string_view title;   // short, the same for every occurrence (RFC 9457 section 3.1.3)
  std::string_view meaning; // what it means and what the client should do: served at GET /problems
};

std::span<const ProblemTypeInfo> problem_registry();
const ProblemTypeInfo& info(ProblemType type);
std::string type_uri(ProblemType type);   // "/problems/<slug>", the problem's "type" member
ProblemType problem_type_from_slug(std::string_view slug);   // the inverse of info(type).slug; throws if unknown

// One occurrence of a problem. `extra` holds extension members (e.g. "errors" for field validation, built by
// common/field_errors.h).
struct Problem {
  ProblemType type;
  std::string detail;
  nlohmann::json extra = nlohmann::json::object();

  static Problem Of(ProblemType type, std::string detail) { return Problem{type, std::move(detail)}; }
  int status() const { return info(type).status; }
  std::string_view slug() const { return info(type).slug; }
  nlohmann::json to_json() const;   // {"type","title","status","detail", ...extra}
};

// Writes the problem as the whole response: status, Content-Type and body. Never throws: bytes of the
// detail that are not UTF-8 are written as U+FFFD.
void reply_problem(httplib::Response& res, const Problem& problem);

// The registry as JSON, for GET /problems.
nlohmann::json problem_registry_json();

}  // namespace lab
