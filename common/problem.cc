// problem.cc: the registry of problem types and their problem+json form. See problem.h.
#include "common/problem.h"

#include <httplib.h>

#include <array>
#include <stdexcept>

namespace lab {
namespace {

using enum ProblemType;

// The published registry. Slugs are part of the contract (docs/reference/http-contract.md, openapi.yaml): never rename one.
constexpr std::array kRegistry = {
    ProblemTypeInfo{Unauthorized, "unauthorized", 401, "Missing or unknown bearer token",
                    "Send Authorization: Bearer <token> with a token from POST /admin/clients."},
    ProblemTypeInfo{IdempotencyKeyMissing, "idempotency-key-missing", 400, "Idempotency-Key header missing",
                    "POST /transfers and /payouts need an Idempotency-Key header (stage 2 on)."},
    ProblemTypeInfo{IdempotencyKeyEmpty, "idempotency-key-empty", 400, "Idempotency-Key is empty",
                    "The key must hold 1 to 255 printable ASCII characters."},
    ProblemTypeInfo{IdempotencyKeyList, "idempotency-key-list", 400, "Idempotency-Key holds a list",
                    "The header is one sf-string, not a comma-separated list of them."},
    ProblemTypeInfo{IdempotencyKeyParameters, "idempotency-key-parameters", 400,
                    "Idempotency-Key carries parameters", "Parameters (;name=value) are not allowed on the key."},
    ProblemTypeInfo{IdempotencyKeyRepeatedHeader, "idempotency-key-repeated-header", 400,
                    "Idempotency-Key sent more than once", "Send exactly one Idempotency-Key header line."},
    ProblemTypeInfo{IdempotencyKeyTooLong, "idempotency-key-too-long", 400, "Idempotency-Key is too long",
                    "The key may hold at most 255 characters after unquoting."},
    ProblemTypeInfo{IdempotencyKeyMalformed, "idempotency-key-malformed", 400,
                    "Idempotency-Key is not a structured-field string",
                    "Send the key as an RFC 8941 sf-string: \"...\" with only printable ASCII, "
                    "\\\" and \\\\ as the escapes."},
    ProblemTypeInfo{UnsupportedMediaType, "unsupported-media-type", 415, "Body is not JSON",
                    "Send Content-Type: application/json."},
    ProblemTypeInfo{BodyTooLarge, "body-too-large", 413, "Body too large", "Request bodies are limited in size."},
    ProblemTypeInfo{JsonSyntax, "json-syntax", 400, "Body is not valid JSON", "Fix the JSON syntax."},
    ProblemTypeInfo{JsonDuplicateMember, "json-duplicate-member", 400, "Duplicate member name in body",
                    "A member name appears twice in one object: which one is meant cannot be known."},
    ProblemTypeInfo{JsonInvalidUtf8, "json-invalid-utf8", 400, "Body is not valid UTF-8",
                    "JSON text must be UTF-8 (RFC 8259 section 8.1)."},
    ProblemTypeInfo{JsonLoneSurrogate, "json-lone-surrogate", 400, "Lone surrogate in a string",
                    "A \\uD800-\\uDFFF escape without its pair cannot be canonicalized (RFC 8785)."},
    ProblemTypeInfo{JsonNumberOutOfRange, "json-number-out-of-range", 400, "Number outside double range",
                    "Numbers must fit an IEEE-754 double (RFC 8785)."},
    ProblemTypeInfo{JsonTooDeep, "json-too-deep", 400, "Body nested too deeply", "Flatten the document."},
    ProblemTypeInfo{InvalidField, "invalid-field", 400, "Invalid request fields",
                    "The `errors` member lists each field and what is wrong with it."},
    ProblemTypeInfo{RequestInProgress, "request-in-progress", 409, "A request with this key is in progress",
                    "The first request with this key has not finished. Retry after Retry-After seconds."},
    ProblemTypeInfo{IdempotencyKeyReused, "idempotency-key-reused", 422,
                    "Idempotency-Key reused with another body",
                    "This key was first used with a different request body. Use a new key for a new request."},
    ProblemTypeInfo{NotFound, "not-found", 404, "No such account",
                    "The account does not exist or does not belong to you (the two are not told apart)."},
    ProblemTypeInfo{CurrencyMismatch, "currency-mismatch", 400, "Currency does not match the accounts",
                    "Both accounts must hold the currency named in the request."},
    ProblemTypeInfo{InsufficientFunds, "insufficient-funds", 402, "Insufficient funds",
                    "The source account holds less than the amount."},
    // 422, not 409: the request is understood and the accounts exist, but the bank will not carry it out,
    // whatever the client retries; 409 here means "retry later" (request-in-progress), which this is not.
    ProblemTypeInfo{BalanceLimit, "balance-limit", 422, "Balance would pass the maximum",
                    "The transfer would take the target account past 2^53 - 1 minor units, the largest "
                    "balance the bank keeps. Nothing moved."},
    ProblemTypeInfo{RouteNotFound, "route-not-found", 404, "No such route", "See openapi.yaml for the routes."},
    // The next seven are answered by the HTTP layer before routing (http_server.cc's pre-routing and error
    // handlers), before any body is read; the server closes the connection after them.
    ProblemTypeInfo{MalformedRequest, "malformed-request", 400, "Malformed HTTP request",
                    "The request line or a header line is not valid HTTP/1.1, or the Content-Length is not one "
                    "number."},
    ProblemTypeInfo{UriTooLong, "uri-too-long", 414, "URI too long", "The request's URI is longer than 8192 bytes."},
    ProblemTypeInfo{RangeNotSatisfiable, "range-not-satisfiable", 416, "Range header not understood",
                    "The Range header could not be parsed. The lab ignores Range on every route: drop the header."},
    ProblemTypeInfo{LengthRequired, "length-required", 411, "Content-Length required",
                    "Send the body with a Content-Length header; Transfer-Encoding (chunked) is not accepted."},
    ProblemTypeInfo{UnsupportedContentEncoding, "unsupported-content-encoding", 415, "Content-Encoding not accepted",
                    "Send the body uncompressed, without a Content-Encoding header."},
    ProblemTypeInfo{RequestHeadTooLarge, "request-head-too-large", 431, "Request head too large",
                    "The request line and headers together are longer than 32 KiB."},
    ProblemTypeInfo{RequestTimeout, "request-timeout", 408, "Request too slow",
                    "The request (head and body) did not arrive within 10 seconds of its first byte."},
    ProblemTypeInfo{LabControlsDisabled, "lab-controls-disabled", 403, "Lab controls are off",
                    "Start the server with --lab-controls to use this endpoint."},
    ProblemTypeInfo{ServiceUnavailable, "service-unavailable", 503, "Temporarily unavailable",
                    "The server was busy: the database, or too many open connections. Nothing was recorded "
                    "under your key: retry with the same key."},
    ProblemTypeInfo{InternalError, "internal-error", 500, "Internal error", "A bug in the server."},
};

}  // namespace

std::span<const ProblemTypeInfo> problem_registry() { return kRegistry; }

const ProblemTypeInfo& info(ProblemType type) {
  for (const auto& entry : kRegistry)
    if (entry.type == type) return entry;
  throw std::logic_error("problem type missing from kRegistry");
}

ProblemType problem_type_from_slug(std::string_view slug) {
  for (const auto& entry : kRegistry)
    if (entry.slug == slug) return entry.type;
  throw std::invalid_argument("unknown problem type " + std::string(slug));
}

std::string type_uri(ProblemType type) { return "/problems/" + std::string(info(type).slug); }

nlohmann::json Problem::to_json() const {
  const auto& i = info(type);
  nlohmann::json body = extra;
  body["type"] = type_uri(type);
  body["title"] = i.title;
  body["status"] = i.status;
  body["detail"] = detail;
  return body;
}

void reply_problem(httplib::Response& res, const Problem& problem) {
  res.status = problem.status();
  // A detail may quote what the client sent (a header's value, say), and that need not be UTF-8. dump()'s
  // default is to throw on such bytes, which would turn the client's 4xx into a 500; `replace` writes each
  // one as U+FFFD instead, so writing a problem never fails.
  res.set_content(problem.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/problem+json");
}

nlohmann::json problem_registry_json() {
  nlohmann::json types = nlohmann::json::array();
  for (const auto& i : kRegistry)
    types.push_back({{"type", type_uri(i.type)},
                     {"status", i.status},
                     {"title", i.title},
                     {"meaning", i.meaning}});
  return {{"problem_types", types}};
}

}  // namespace lab
