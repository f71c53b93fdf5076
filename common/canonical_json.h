// canonical_json.h: strict JSON parsing and RFC 8785 (JSON Canonicalization Scheme, JCS) output.
//
// Interface:
//   parse_canonical_json(text)  one JSON document -> its parsed value and canonical bytes, or a JsonError
//                               saying why it cannot be canonicalized. Never throws for bad input.
//   canonicalize(value)         canonical bytes of an already-parsed value.
//   rejection_name(why)         short stable name of a rejection ("duplicate-member", ...).
//
// Two bodies that mean the same JSON value get the same canonical bytes, whatever their member
// order, whitespace or escaping, so a hash of those bytes can tell a retried request from a changed
// one. Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace lab {

// The largest integer every JSON reader holds exactly: 2^53 - 1. RFC 8785 and JavaScript read each number as
// an IEEE-754 double, whose 53-bit significand holds every integer up to here and skips some above (2^53 + 1
// reads as 2^53). RFC 7493 (I-JSON) section 2.2 asks for integers in this range. The lab's amounts, ids and
// clock steps stay inside it, so no client reads one of them as another number.
inline constexpr std::int64_t kMaxExactJsonInteger = (std::int64_t{1} << 53) - 1;

// Deepest nesting of arrays and objects a request body may have. Real transfer bodies are two or
// three levels deep; the limit keeps a hostile body from costing the server memory and stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

enum class JsonRejection {
  Syntax,            // not JSON (also NaN, Infinity, a byte order mark, a raw NUL, trailing content)
  DuplicateMember,   // the same member name twice in one object, compared after unescaping
  InvalidUtf8,       // the raw bytes are not UTF-8
  LoneSurrogate,     // a \uD800..\uDFFF escape that is not half of a surrogate pair
  NumberOutOfRange,  // a number too large for an IEEE-754 double
  TooDeep,           // nested deeper than kMaxJsonDepth
};

struct JsonError {
  JsonRejection why;
  std::string detail;  // one sentence naming the cause and where, e.g. "duplicate member name \"amount\""
};

struct CanonicalJson {
  nlohmann::json value;  // the parsed document; integers stay integers as nlohmann parses them
  std::string text;      // the RFC 8785 canonical UTF-8 bytes
};

// Parses one JSON document strictly and canonicalizes it. Never throws for bad input.
std::variant<CanonicalJson, JsonError> parse_canonical_json(std::string_view text);

// Canonical form of an already-parsed value. Every number is treated as the IEEE-754 double nearest
// to it, as RFC 8785 says. Throws std::invalid_argument for what has no canonical form: NaN or
// infinity, strings that are not valid UTF-8, binary values.
std::string canonicalize(const nlohmann::json& value);

// "syntax", "duplicate-member", "invalid-utf8", "lone-surrogate", "number-out-of-range", "too-deep".
std::string_view rejection_name(JsonRejection why);

}  // namespace lab
