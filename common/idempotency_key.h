// idempotency_key.h: reads the Idempotency-Key header. docs/reference/http-contract.md "The Idempotency-Key header".
//
// The IETF draft (draft-ietf-httpapi-idempotency-key-header) defines the header as an RFC 8941
// structured-field Item whose value is an sf-string:   Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"
//
//   auto key = parse_idempotency_key_or_reply(req, res);
//   if (!key) return;   // 400 problem+json already written, one problem type per mistake
//
// Decisions (also in docs/reference/http-contract.md "The Idempotency-Key header" and GET
// /idempotency-policy):
// - An sf-string is unquoted with its two escapes (\" and \\); any other backslash is malformed.
// - A bare value is accepted too and taken literally, because many clients send unquoted UUIDs.
//   Note that a UUID starting with a digit is not an RFC 8941 token, so a strict sf parser would refuse
//   it; we accept any bare run of printable ASCII without space, '"', ',', ';' or '\'. "abc" and abc are
//   the same key.
// - After unquoting the key holds 1..kMaxKeyLength printable ASCII characters (0x20-0x7E).
// - A list ("a", "b"), parameters ("a";x=1), two header lines, or nothing: each its own 400.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/problem.h"

namespace httplib { struct Request; struct Response; }

namespace lab {

inline constexpr std::size_t kMaxKeyLength = 255;   // the draft's examples are UUIDs (36 characters)

// The pure parser: every header line named Idempotency-Key, in order.
std::variant<std::string, Problem> parse_idempotency_key(const std::vector<std::string_view>& header_lines);

std::optional<std::string> parse_idempotency_key_or_reply(const httplib::Request& req, httplib::Response& res);

}  // namespace lab
