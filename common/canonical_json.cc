// canonical_json.cc: strict JSON parsing and RFC 8785 (JCS) canonical output.
//
// Interface (see canonical_json.h): parse_canonical_json, canonicalize, rejection_name.
// Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
//
// How it works:
//   1. find_utf8_fault checks the raw bytes: JSON text must be UTF-8 (RFC 8259 section 8.1), and
//      two different byte sequences must never decode to "the same" string.
//   2. nlohmann's SAX parser tokenizes; StrictDocumentBuilder builds the value and refuses what
//      nlohmann would accept silently: a repeated member name (nlohmann keeps the last one) and
//      deep nesting. A byte order mark and raw NUL bytes, which nlohmann's lexer skips or takes
//      for the end of input, are refused before it runs. classify_parse_error turns nlohmann's
//      errors into our rejection kinds.
//   3. append_value writes the RFC 8785 form: members sorted by UTF-16 code units, numbers as
//      ECMAScript prints doubles, strings with only the escapes JSON cannot do without.
#include "common/canonical_json.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <cstdio>
#include <system_error>
#include <utility>
#include <vector>

#include "common/hex.h"

namespace lab {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// UTF-8
// ---------------------------------------------------------------------------------------------

struct Utf8Fault {
  std::size_t offset;       // of the first byte of the broken sequence
  unsigned char byte;       // that byte
  std::string_view reason;  // why the sequence is not UTF-8
};

// The well-formed byte sequences of Unicode's Table 3-7 (RFC 3629 section 4). The ranges for the
// second byte after E0, ED, F0 and F4 are what exclude overlong forms, UTF-16 surrogates encoded
// as UTF-8, and code points beyond U+10FFFF: a lenient decoder would let each of them smuggle a
// second spelling of one string past a byte comparison.
std::optional<Utf8Fault> find_utf8_fault(std::string_view bytes) {
  constexpr unsigned char kContinuationLow = 0x80;
  constexpr unsigned char kContinuationHigh = 0xBF;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char second_low = kContinuationLow;
    unsigned char second_high = kContinuationHigh;
    std::string_view second_reason;
    if (lead < 0xC0) {
      return Utf8Fault{i, lead, "continuation byte without a lead byte"};
    } else if (lead < 0xC2) {
      return Utf8Fault{i, lead, "overlong encoding"};
    } else if (lead < 0xE0) {
      length = 2;
    } else if (lead < 0xF0) {
      length = 3;
      if (lead == 0xE0) {
        second_low = 0xA0;
        second_reason = "overlong encoding";
      } else if (lead == 0xED) {
        second_high = 0x9F;
        second_reason = "UTF-16 surrogate encoded as UTF-8";
      }
    } else if (lead < 0xF5) {
      length = 4;
      if (lead == 0xF0) {
        second_low = 0x90;
        second_reason = "overlong encoding";
      } else if (lead == 0xF4) {
        second_high = 0x8F;
        second_reason = "code point beyond U+10FFFF";
      }
    } else {
      return Utf8Fault{i, lead, "byte that never occurs in UTF-8"};
    }
    for (std::size_t k = 1; k < length; ++k) {
      if (i + k >= bytes.size()) return Utf8Fault{i, lead, "truncated sequence"};
      const auto next = static_cast<unsigned char>(bytes[i + k]);
      const unsigned char low = k == 1 ? second_low : kContinuationLow;
      const unsigned char high = k == 1 ? second_high : kContinuationHigh;
      if (next < kContinuationLow || next > kContinuationHigh) {
        return Utf8Fault{i, lead, "truncated sequence"};
      }
      if (next < low || next > high) return Utf8Fault{i, lead, second_reason};
    }
    i += length;
  }
  return std::nullopt;
}

// A byte named for a person reading an error: "0xC3", upper case as UTF-8 tables write bytes. Not the hex
// encoder's job (common/hex.h writes bytes as data, lower case, for hashes and escapes), so printf's own
// formatting does it and no second table of hex digits exists.
std::string hex_byte(unsigned char byte) {
  char text[sizeof "0xFF"];
  std::snprintf(text, sizeof text, "0x%02X", static_cast<unsigned>(byte));
  return text;
}

std::string describe(const Utf8Fault& fault) {
  return "invalid UTF-8 byte " + hex_byte(fault.byte) + " at offset " + std::to_string(fault.offset) +
         " (" + std::string(fault.reason) + ")";
}

// RFC 8785 section 3.2.3 sorts member names as ECMAScript compares strings: by UTF-16 code units.
// That differs from UTF-8 byte order (= code point order) exactly when a character above U+FFFF,
// which UTF-16 writes as surrogates D800..DFFF, meets one in U+E000..U+FFFF.
// Expects valid UTF-8 (find_utf8_fault has run).
std::u16string utf16_code_units(std::string_view utf8) {
  std::u16string units;
  units.reserve(utf8.size());
  std::size_t i = 0;
  while (i < utf8.size()) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    constexpr std::array<unsigned char, 5> kLeadPayloadMask{0, 0x7F, 0x1F, 0x0F, 0x07};
    char32_t code_point = lead & kLeadPayloadMask[length];
    for (std::size_t k = 1; k < length; ++k) {
      code_point = (code_point << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    }
    i += length;
    constexpr char32_t kFirstAstral = 0x10000;
    if (code_point < kFirstAstral) {
      units.push_back(static_cast<char16_t>(code_point));
    } else {
      code_point -= kFirstAstral;
      units.push_back(static_cast<char16_t>(0xD800 + (code_point >> 10)));
      units.push_back(static_cast<char16_t>(0xDC00 + (code_point & 0x3FF)));
    }
  }
  return units;
}

// ---------------------------------------------------------------------------------------------
// Canonical output
// ---------------------------------------------------------------------------------------------

// ECMAScript's Number-to-String conversion (section 7.1.12.1 of ES6, the edition RFC 8785 cites in
// its section 3.2.2.3).
// ECMAScript writes the value as digits × 10^(n−k) with the fewest digits k that read back as the
// same double; std::to_chars promises exactly those shortest digits (ties to the closest, as
// ECMAScript's Note 2 and V8 do). Only the layout is ours to write.
void append_number(double value, std::string& out) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument("RFC 8785 has no canonical form for NaN or infinity");
  }
  if (value == 0) {  // also -0: ECMAScript prints it as "0"
    out += '0';
    return;
  }
  if (value < 0) {
    out += '-';
    value = -value;
  }

  constexpr std::size_t kScientificChars = 32;  // "1.7976931348623157e+308" is 23
  std::array<char, kScientificChars> buffer{};
  const auto [end, error] =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::scientific);
  if (error != std::errc{}) throw std::invalid_argument("number does not fit the format buffer");
  const std::string_view scientific(buffer.data(), static_cast<std::size_t>(end - buffer.data()));

  // scientific is "d.ddde+XX" or "de-XX": split it into the digit string and the exponent.
  const std::size_t e = scientific.find('e');
  std::string digits(1, scientific[0]);
  if (e > 1) digits.append(scientific.substr(2, e - 2));
  const bool negative_exponent = scientific[e + 1] == '-';
  int exponent = 0;
  std::from_chars(scientific.data() + e + 2, scientific.data() + scientific.size(), exponent);
  if (negative_exponent) exponent = -exponent;

  // The names of the ECMAScript text: k digits, the decimal point sits after n of them.
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;
  constexpr int kMaxPlainIntegerDigits = 21;      // 1e21 is the first value printed with an exponent
  constexpr int kMaxLeadingFractionZeros = 6;     // 0.000001 is plain, 1e-7 is not

  if (k <= n && n <= kMaxPlainIntegerDigits) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= kMaxPlainIntegerDigits) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out += '.';
    out.append(digits, static_cast<std::size_t>(n));
  } else if (-kMaxLeadingFractionZeros < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1);
    }
    const int shown_exponent = n - 1;
    out += shown_exponent < 0 ? "e-" : "e+";
    out += std::to_string(shown_exponent < 0 ? -shown_exponent : shown_exponent);
  }
}

// RFC 8785 section 3.2.2.2: escape only what JSON cannot carry raw. '/' and every non-ASCII
// character stay as they are, so there is one spelling per string.
void append_string(std::string_view text, std::string& out) {
  if (const auto fault = find_utf8_fault(text)) {
    throw std::invalid_argument("string is not valid UTF-8: " + describe(*fault));
  }
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20) {
          // \u00XX with XX in lower case (RFC 8785 section 3.2.2.2): the one hex encoder's own format.
          out += "\\u00";
          out += lowercase_hex(std::span(&byte, 1));
        } else {
          out += c;
        }
      }
    }
  }
  out += '"';
}

void append_value(const json& value, std::string& out);

void append_object(const json& object, std::string& out) {
  struct Member {
    std::u16string sort_key;
    const std::string* name;
    const json* value;
  };
  std::vector<Member> members;
  members.reserve(object.size());
  for (const auto& [name, value] : object.get_ref<const json::object_t&>()) {
    if (const auto fault = find_utf8_fault(name)) {
      throw std::invalid_argument("member name is not valid UTF-8: " + describe(*fault));
    }
    members.push_back(Member{utf16_code_units(name), &name, &value});
  }
  // std::u16string compares char16_t code units as unsigned numbers, shorter prefix first:
  // exactly the order RFC 8785 section 3.2.3 describes.
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.sort_key < b.sort_key; });
  out += '{';
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i > 0) out += ',';
    append_string(*members[i].name, out);
    out += ':';
    append_value(*members[i].value, out);
  }
  out += '}';
}

void append_value(const json& value, std::string& out) {
  switch (value.type()) {
    case json::value_t::null: out += "null"; break;
    case json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; break;
    // RFC 8785 section 3.2.2.3: every number is an IEEE-754 double, including integers that
    // nlohmann kept exact. The conversion rounds to the nearest double, as strtod would.
    case json::value_t::number_integer:
      append_number(static_cast<double>(value.get<std::int64_t>()), out);
      break;
    case json::value_t::number_unsigned:
      append_number(static_cast<double>(value.get<std::uint64_t>()), out);
      break;
    case json::value_t::number_float: append_number(value.get<double>(), out); break;
    case json::value_t::string: append_string(value.get_ref<const std::string&>(), out); break;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const json& element : value) {
        if (!first) out += ',';
        first = false;
        append_value(element, out);
      }
      out += ']';
      break;
    }
    case json::value_t::object: append_object(value, out); break;
    case json::value_t::binary:
      throw std::invalid_argument("binary values have no JSON text form");
    case json::value_t::discarded:
      throw std::invalid_argument("a discarded value has no JSON text form");
  }
}

std::string as_json_string(std::string_view text) {
  std::string out;
  append_string(text, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Strict parsing
// ---------------------------------------------------------------------------------------------

// nlohmann's exception id for "number overflow parsing ..." (json.exception.out_of_range.406).
constexpr int kNlohmannNumberOverflowId = 406;

// Where a string token nlohmann gave up on holds its first unpaired \uD800..\uDFFF escape.
// Walks the escapes in order exactly as a decoder pairs them, so "\ud800\ud800" blames the first.
struct LoneSurrogate {
  std::size_t index;       // of the backslash inside the token
  std::string_view escape; // e.g. "\ud800", as the client wrote it
  bool is_high;
};

std::optional<LoneSurrogate> find_lone_surrogate(std::string_view token) {
  constexpr std::size_t kEscapeLength = 6;  // backslash, 'u', four hex digits
  std::optional<LoneSurrogate> pending_high;
  std::size_t i = 0;
  while (i < token.size()) {
    if (token[i] != '\\') {
      if (pending_high) return pending_high;  // a high surrogate followed by anything but \u
      ++i;
      continue;
    }
    if (i + 1 >= token.size() || token[i + 1] != 'u' || i + kEscapeLength > token.size()) {
      if (pending_high) return pending_high;
      i += 2;
      continue;
    }
    unsigned unit = 0;
    const auto hex = token.substr(i + 2, 4);
    const auto [ptr, error] = std::from_chars(hex.data(), hex.data() + hex.size(), unit, 16);
    if (error != std::errc{} || ptr != hex.data() + hex.size()) return pending_high;
    const bool high = unit >= 0xD800 && unit <= 0xDBFF;
    const bool low = unit >= 0xDC00 && unit <= 0xDFFF;
    const LoneSurrogate here{i, token.substr(i, kEscapeLength), high};
    if (pending_high) {
      if (!low) return pending_high;
      pending_high.reset();
    } else if (low) {
      return here;
    } else if (high) {
      pending_high = here;
    }
    i += kEscapeLength;
  }
  return pending_high;
}

// JavaScript and Python write these for non-finite numbers; JSON has no spelling for them.
struct NonJsonNumber {
  std::string_view spelling;
  std::size_t offset;
};

std::optional<NonJsonNumber> non_json_number_at(std::string_view text, std::size_t offset) {
  constexpr std::array<std::string_view, 6> kSpellings{"-Infinity", "+Infinity", "Infinity",
                                                       "-NaN", "+NaN", "NaN"};
  // nlohmann stops at the letter, one byte after a sign.
  const std::size_t start = offset > 0 && (text[offset - 1] == '-' || text[offset - 1] == '+')
                                ? offset - 1
                                : offset;
  for (const std::string_view spelling : kSpellings) {
    if (text.substr(start).starts_with(spelling)) return NonJsonNumber{spelling, start};
  }
  return std::nullopt;
}

// nlohmann reports errors with the byte count read so far and the token being read. The token
// ends where reading stopped; at end of input the count is one past the text.
JsonError classify_parse_error(std::string_view text, std::size_t position, const std::string& token,
                               const json::exception& error) {
  const std::size_t stop = std::min(position, text.size());
  const std::size_t token_start = stop >= token.size() ? stop - token.size() : 0;
  const std::size_t error_offset = position > 0 ? position - 1 : 0;

  if (error.id == kNlohmannNumberOverflowId) {
    return {JsonRejection::NumberOutOfRange,
            "number " + token + " at offset " + std::to_string(token_start) +
                " is too large for an IEEE-754 double"};
  }
  // nlohmann has no error id of its own for surrogates, only its message text; the lone-surrogate
  // tests pin this against the nlohmann version the lab builds with.
  const std::string_view message = error.what();
  if (message.find("surrogate U+") != std::string_view::npos) {
    if (const auto lone = find_lone_surrogate(token)) {
      return {JsonRejection::LoneSurrogate,
              "lone surrogate " + std::string(lone->escape) + " at offset " +
                  std::to_string(token_start + lone->index) +
                  (lone->is_high ? " (a high surrogate must be followed by a \\uDC00..\\uDFFF escape)"
                                 : " (a low surrogate must follow a \\uD800..\\uDBFF escape)")};
    }
    return {JsonRejection::LoneSurrogate, "lone surrogate in the string at offset " + std::to_string(token_start)};
  }
  if (const auto number = non_json_number_at(text, std::min(error_offset, text.size()))) {
    return {JsonRejection::Syntax, std::string(number->spelling) + " at offset " +
                                       std::to_string(number->offset) +
                                       " is not JSON: JSON numbers have no NaN or Infinity"};
  }

  // Keep nlohmann's description ("unexpected ']'; expected '[', '{', or a literal") but drop its
  // "[json.exception...] parse error at line 1, column 4: syntax error while parsing value - "
  // prefix and the "; last read: '...'" echo, which may hold raw control bytes.
  std::string description(message);
  if (const auto dash = description.find(" - "); dash != std::string::npos) {
    description.erase(0, dash + 3);
  }
  const std::string echo = "; last read: '" + token + "'";
  if (const auto at = description.find(echo); at != std::string::npos) description.erase(at, echo.size());
  return {JsonRejection::Syntax, "syntax error at offset " + std::to_string(error_offset) + ": " + description};
}

// Where the first array or object opens that is deeper than kMaxJsonDepth. Only called on text
// nlohmann has already tokenized up to that point, so brackets inside strings are all that
// needs skipping.
std::size_t offset_of_excess_nesting(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

// Builds the parsed value from nlohmann's SAX events, refusing what nlohmann's own DOM parser
// would accept: a repeated member name (it keeps the last) and nesting deeper than kMaxJsonDepth.
// Returning false from an event stops the parse at once.
class StrictDocumentBuilder final : public nlohmann::json_sax<json> {
 public:
  explicit StrictDocumentBuilder(std::string_view text) : text_(text) {}

  bool null() override { return place(json(nullptr)); }
  bool boolean(bool value) override { return place(json(value)); }
  bool number_integer(number_integer_t value) override { return place(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return place(json(value)); }
  bool number_float(number_float_t value, const string_t& /*as_written*/) override {
    return place(json(value));
  }
  bool string(string_t& value) override { return place(json(std::move(value))); }
  bool binary(binary_t& /*value*/) override {  // only binary formats (CBOR, ...) produce these
    error_ = JsonError{JsonRejection::Syntax, "binary value in JSON text"};
    return false;
  }

  bool start_object(std::size_t /*unknown_size*/) override { return open(json::object()); }
  bool key(string_t& name) override {
    json& object = *open_.back();
    // nlohmann hands over the name already unescaped, so "a" and "\u0061" compare equal here.
    if (object.contains(name)) {
      error_ = JsonError{JsonRejection::DuplicateMember, "duplicate member name " + as_json_string(name)};
      return false;
    }
    // A std::map node never moves, so this pointer survives the siblings inserted after it.
    pending_member_ = &object[name];
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*unknown_size*/) override { return open(json::array()); }
  bool end_array() override {
    open_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token,
                   const json::exception& error) override {
    error_ = classify_parse_error(text_, position, last_token, error);
    return false;
  }

  json take_document() { return std::move(document_); }
  const std::optional<JsonError>& error() const { return error_; }

 private:
  // Puts a finished value where the parser is: the document itself, the next array element, or
  // the member whose name key() just saw.
  json* put(json value) {
    if (open_.empty()) {
      document_ = std::move(value);
      return &document_;
    }
    json& container = *open_.back();
    if (container.is_array()) {
      container.push_back(std::move(value));
      return &container.back();
    }
    *pending_member_ = std::move(value);
    return pending_member_;
  }
  bool place(json value) {
    put(std::move(value));
    return true;
  }
  bool open(json container) {
    if (open_.size() >= kMaxJsonDepth) {
      error_ = JsonError{JsonRejection::TooDeep,
                         "nesting deeper than " + std::to_string(kMaxJsonDepth) +
                             " arrays and objects at offset " +
                             std::to_string(offset_of_excess_nesting(text_))};
      return false;
    }
    // Pointers into a parent array stay valid: nothing is added to a parent while a child is open.
    open_.push_back(put(std::move(container)));
    return true;
  }

  std::string_view text_;
  json document_;
  std::vector<json*> open_;           // the arrays and objects not yet closed, innermost last
  json* pending_member_ = nullptr;    // where the value after key() goes
  std::optional<JsonError> error_;
};

}  // namespace

std::variant<CanonicalJson, JsonError> parse_canonical_json(std::string_view text) {
  // Checked before parsing: until the bytes are known to be UTF-8 they are not yet characters.
  if (const auto fault = find_utf8_fault(text)) {
    return JsonError{JsonRejection::InvalidUtf8, describe(*fault)};
  }
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text.starts_with(kByteOrderMark)) {  // nlohmann would skip it silently
    return JsonError{JsonRejection::Syntax,
                     "byte order mark at offset 0: JSON text must not start with U+FEFF (RFC 8259 section 8.1)"};
  }

  // nlohmann's lexer takes a NUL byte for the end of the input, so "[1]\0junk" would pass as
  // "[1]". JSON has no place for a raw NUL anyway: inside a string it must be written \u0000.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    return JsonError{JsonRejection::Syntax, "raw NUL byte at offset " + std::to_string(nul) +
                                                " (JSON allows U+0000 only as the escape \\u0000)"};
  }

  StrictDocumentBuilder builder(text);
  const bool parsed = json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json,
                                      /*strict: nothing may follow the document*/ true,
                                      /*ignore_comments*/ false);
  if (!parsed || builder.error()) {
    if (builder.error()) return *builder.error();
    return JsonError{JsonRejection::Syntax, "syntax error"};
  }
  CanonicalJson result{builder.take_document(), {}};
  result.text = canonicalize(result.value);
  return result;
}

std::string canonicalize(const json& value) {
  std::string out;
  append_value(value, out);
  return out;
}

std::string_view rejection_name(JsonRejection why) {
  switch (why) {
    case JsonRejection::Syntax: return "syntax";
    case JsonRejection::DuplicateMember: return "duplicate-member";
    case JsonRejection::InvalidUtf8: return "invalid-utf8";
    case JsonRejection::LoneSurrogate: return "lone-surrogate";
    case JsonRejection::NumberOutOfRange: return "number-out-of-range";
    case JsonRejection::TooDeep: return "too-deep";
  }
  return "unknown";
}

}  // namespace lab
