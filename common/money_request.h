// money_request.h: the body of POST /transfers and POST /payouts, validated. docs/reference/http-contract.md "The HTTP contract".
//
//   auto request = parse_money_request_or_reply(req, res, Endpoint::Transfers);
//   if (!request) return;   // 415, 413 or 400 problem+json already written
//
// Checks, in the contract's order: 415 not JSON, 413 body over kMaxBodyBytes, 400 bad JSON (RFC 8785 strict
// parse: duplicate members, invalid UTF-8, lone surrogates, numbers out of range), 400 invalid-field (all
// field errors at once, in `errors`; the `metadata` object's limits are in request_metadata.h). Validation
// never looks at the database: a 400 never touches the key table, and "does this account exist?" is the
// bank's question (404), asked after the idempotency step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/canonical_json.h"
#include "common/problem.h"

namespace httplib { struct Request; struct Response; }

namespace lab {

// The two idempotent endpoints. Two, so that stage 6 can show that a key is scoped per endpoint.
enum class Endpoint { Transfers, Payouts };
inline constexpr Endpoint kEndpoints[] = {Endpoint::Transfers, Endpoint::Payouts};   // every money route
std::string_view path_of(Endpoint endpoint);   // "/transfers" or "/payouts"
std::string_view kind_of(Endpoint endpoint);   // "transfer" or "payout": the ledger's word

// Amounts and balances are integers in minor units (cents), at most 2^53 - 1 so that every JSON
// implementation, JavaScript's included, reads them exactly. In a request they may be spelled as any JSON
// number with that integral value (1500, 1500.0, 1.5e3): RFC 8785 makes them one canonical form.
inline constexpr std::int64_t kMaxMinorUnits = kMaxExactJsonInteger;
inline constexpr std::size_t kMaxBodyBytes = 16 * 1024;   // a transfer body is ~150 bytes
inline constexpr std::size_t kMaxMemoBytes = 200;
inline constexpr std::size_t kMaxDestinationBytes = 64;

struct MoneyRequest {
  Endpoint endpoint;
  std::int64_t from_account = 0;
  std::optional<std::int64_t> to_account;   // transfers only
  std::string destination;                  // payouts only: an external account, e.g. "IBAN DE89..."
  std::int64_t amount = 0;
  std::string currency;
  std::string memo;
  std::optional<std::string> metadata;   // RFC 8785 form of the `metadata` object, if the body had one
  std::string canonical_body;   // RFC 8785 form of the body: the input of the fingerprint (stage 3+)
};

// The pure check, for tests: content type and body in, request or problem out.
std::variant<MoneyRequest, Problem> parse_money_request(std::string_view content_type, std::string_view body,
                                                        Endpoint endpoint);

// Answers 415/413/400 itself and returns nothing, or returns the valid request.
std::optional<MoneyRequest> parse_money_request_or_reply(const httplib::Request& req, httplib::Response& res,
                                                         Endpoint endpoint);

// The 400 for a body that cannot be canonicalized: one problem type per JsonRejection.
Problem json_problem(const JsonError& error);

// Shared with the admin endpoints: is this Content-Type application/json? (Case-insensitive, parameters
// such as charset=utf-8 allowed.)
bool is_json_media_type(std::string_view content_type);

// Shared with the admin endpoints: "USD", "EUR", ...: exactly three upper-case ASCII letters, the form of
// ISO 4217's alphabetic codes. The form only: the lab does not carry ISO's list, so "XYZ" is a currency.
bool is_currency_code(std::string_view text);
// The reason an invalid-field error gives for any currency that is not such a code.
inline constexpr std::string_view kCurrencyCodeRule =
    "must be a currency code: exactly three upper-case letters, as in ISO 4217 (e.g. \"USD\")";

}  // namespace lab
