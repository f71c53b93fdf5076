// canonical.h: RFC 8785 (JSON Canonicalization Scheme), the model's own, so that the grader links nothing of
// lab_common. docs/reference/fingerprint.md "What RFC 8785 prescribes" and "What the lab rejects with 400".
//
//   JsonText parsed = parse_json(body);            // parsed.fault == JsonFault::None, or why it has no form
//   parsed.canonical                                // one spelling per value: the fingerprint's input
//   same_request_body(a, b)                         // both have a canonical form, and it is the same
//
// The parser is strict as the contract is: duplicate member names (after unescaping), invalid UTF-8, lone
// surrogates, numbers beyond a double and nesting deeper than 64 are each their own fault, never a guess.
// Numbers are IEEE doubles (2^53+1 reads as 9007199254740992) written as ECMAScript writes them.
// Pure: no I/O, no locale (std::from_chars / std::to_chars).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace grader::model {

// Why a text has no canonical form; json_fault_type() is the problem type the contract gives it.
enum class JsonFault { None, Syntax, DuplicateMember, InvalidUtf8, LoneSurrogate, NumberOutOfRange, TooDeep };
const char* json_fault_type(JsonFault fault);  // "json-syntax", ... ("" for None)

constexpr int kMaxJsonDepth = 64;  // fingerprint.md: 65 nested [ are too deep

// A parsed JSON value. Members keep the input's order; canonical_text sorts them.
struct Json {
  enum class Kind { Null, False, True, Number, String, Array, Object };
  Kind kind = Kind::Null;
  double number = 0;                                  // Number
  std::string text;                                   // String, as UTF-8 (escapes decoded)
  std::vector<Json> items;                            // Array
  std::vector<std::pair<std::string, Json>> members;  // Object

  const Json* member(std::string_view name) const;    // nullptr when absent
};

struct JsonText {
  JsonFault fault = JsonFault::None;
  Json value;             // when fault == None
  std::string canonical;  // when fault == None
};

JsonText parse_json(std::string_view text);

// RFC 8785 section 3.2.2.3: ECMAScript's Number.prototype.toString of a finite double.
std::string canonical_number(double value);
// Section 3.2: the whole value, members sorted by UTF-16 code units, strings with the minimal escapes.
std::string canonical_text(const Json& value);
// True when both texts have a canonical form and the forms are equal: "the same request" (stage 3).
bool same_request_body(std::string_view a, std::string_view b);

}  // namespace grader::model
