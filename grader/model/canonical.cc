// canonical.cc: a strict JSON reader and the RFC 8785 writer. docs/reference/fingerprint.md.
//
// The reader checks the raw bytes for UTF-8 first (as the contract orders it), then reads the grammar of
// RFC 8259 by recursive descent. The writer follows RFC 8785 section 3.2: no whitespace, the minimal string
// escapes, ECMAScript numbers, members sorted by their names as UTF-16 code units.
#include "grader/model/canonical.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <system_error>

namespace grader::model {

const char* json_fault_type(JsonFault fault) {
  switch (fault) {
    case JsonFault::None: return "";
    case JsonFault::Syntax: return "json-syntax";
    case JsonFault::DuplicateMember: return "json-duplicate-member";
    case JsonFault::InvalidUtf8: return "json-invalid-utf8";
    case JsonFault::LoneSurrogate: return "json-lone-surrogate";
    case JsonFault::NumberOutOfRange: return "json-number-out-of-range";
    case JsonFault::TooDeep: return "json-too-deep";
  }
  return "json-syntax";
}

const Json* Json::member(std::string_view name) const {
  for (const auto& [key, value] : members)
    if (key == name) return &value;
  return nullptr;
}

namespace {

// Unicode's table of well-formed UTF-8 (no overlongs, no surrogates D800..DFFF, nothing above U+10FFFF).
bool well_formed_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) { ++i; continue; }
    int extra;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) extra = 1;
    else if (b == 0xE0) { extra = 2; lo = 0xA0; }
    else if (b >= 0xE1 && b <= 0xEC) extra = 2;
    else if (b == 0xED) { extra = 2; hi = 0x9F; }
    else if (b >= 0xEE && b <= 0xEF) extra = 2;
    else if (b == 0xF0) { extra = 3; lo = 0x90; }
    else if (b >= 0xF1 && b <= 0xF3) extra = 3;
    else if (b == 0xF4) { extra = 3; hi = 0x8F; }
    else return false;
    if (i + static_cast<std::size_t>(extra) >= s.size()) return false;  // truncated sequence
    for (int k = 1; k <= extra; ++k) {
      auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return false;
    }
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Recursive descent over RFC 8259's grammar; the first fault found stops it.
class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  JsonFault read_document(Json& out) {
    skip_space();
    if (!read_value(out, 1)) return fault_;
    skip_space();
    if (i_ != s_.size()) return JsonFault::Syntax;  // trailing text, a NUL byte included
    return JsonFault::None;
  }

 private:
  bool fail(JsonFault f) { fault_ = f; return false; }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return s_[i_]; }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++i_;
  }

  bool read_value(Json& out, int depth) {
    if (at_end()) return fail(JsonFault::Syntax);
    char c = peek();
    if (c == '{' || c == '[') {
      if (depth > kMaxJsonDepth) return fail(JsonFault::TooDeep);
      return c == '{' ? read_object(out, depth) : read_array(out, depth);
    }
    if (c == '"') { out.kind = Json::Kind::String; return read_string(out.text); }
    if (c == '-' || (c >= '0' && c <= '9')) { out.kind = Json::Kind::Number; return read_number(out.number); }
    if (literal("true")) { out.kind = Json::Kind::True; return true; }
    if (literal("false")) { out.kind = Json::Kind::False; return true; }
    if (literal("null")) { out.kind = Json::Kind::Null; return true; }
    return fail(JsonFault::Syntax);  // NaN, Infinity, a byte order mark, ...
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool read_object(Json& out, int depth) {
    out.kind = Json::Kind::Object;
    ++i_;  // {
    skip_space();
    if (!at_end() && peek() == '}') { ++i_; return true; }
    for (;;) {
      skip_space();
      if (at_end() || peek() != '"') return fail(JsonFault::Syntax);
      std::string name;
      if (!read_string(name)) return false;
      // Compared after unescaping: {"a":1,"\u0061":2} is a duplicate.
      if (out.member(name) != nullptr) return fail(JsonFault::DuplicateMember);
      skip_space();
      if (at_end() || peek() != ':') return fail(JsonFault::Syntax);
      ++i_;
      skip_space();
      Json value;
      if (!read_value(value, depth + 1)) return false;
      out.members.emplace_back(std::move(name), std::move(value));
      skip_space();
      if (at_end()) return fail(JsonFault::Syntax);
      if (peek() == ',') { ++i_; continue; }
      if (peek() == '}') { ++i_; return true; }
      return fail(JsonFault::Syntax);
    }
  }

  bool read_array(Json& out, int depth) {
    out.kind = Json::Kind::Array;
    ++i_;  // [
    skip_space();
    if (!at_end() && peek() == ']') { ++i_; return true; }
    for (;;) {
      skip_space();
      Json item;
      if (!read_value(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
      skip_space();
      if (at_end()) return fail(JsonFault::Syntax);
      if (peek() == ',') { ++i_; continue; }
      if (peek() == ']') { ++i_; return true; }
      return fail(JsonFault::Syntax);
    }
  }

  bool read_hex4(std::uint32_t& unit) {
    if (i_ + 4 > s_.size()) return fail(JsonFault::Syntax);
    unit = 0;
    for (int k = 0; k < 4; ++k) {
      char h = s_[i_++];
      unit <<= 4;
      if (h >= '0' && h <= '9') unit |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') unit |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') unit |= static_cast<std::uint32_t>(h - 'A' + 10);
      else return fail(JsonFault::Syntax);
    }
    return true;
  }

  bool read_string(std::string& out) {
    ++i_;  // "
    for (;;) {
      if (at_end()) return fail(JsonFault::Syntax);
      auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') { ++i_; return true; }
      if (c < 0x20) return fail(JsonFault::Syntax);  // a raw control character
      if (c != '\\') { out += static_cast<char>(c); ++i_; continue; }
      ++i_;
      if (at_end()) return fail(JsonFault::Syntax);
      char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t unit;
          if (!read_hex4(unit)) return false;
          if (unit >= 0xDC00 && unit <= 0xDFFF) return fail(JsonFault::LoneSurrogate);
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            // A high surrogate must be followed by a \uDC00..\uDFFF escape.
            std::uint32_t low = 0;
            if (s_.substr(i_, 2) != "\\u") return fail(JsonFault::LoneSurrogate);
            i_ += 2;
            if (!read_hex4(low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail(JsonFault::LoneSurrogate);
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, unit);
          break;
        }
        default: return fail(JsonFault::Syntax);
      }
    }
  }

  bool read_number(double& out) {
    std::size_t start = i_;
    if (peek() == '-') ++i_;
    auto digits = [&] {
      std::size_t from = i_;
      while (!at_end() && peek() >= '0' && peek() <= '9') ++i_;
      return i_ - from;
    };
    if (at_end()) return fail(JsonFault::Syntax);
    if (peek() == '0') ++i_;
    else if (digits() == 0) return fail(JsonFault::Syntax);
    if (!at_end() && peek() == '.') {
      ++i_;
      if (digits() == 0) return fail(JsonFault::Syntax);
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++i_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++i_;
      if (digits() == 0) return fail(JsonFault::Syntax);
    }
    std::string_view text = s_.substr(start, i_ - start);
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec == std::errc::result_out_of_range) {
      // Too small is in range (1e-400 is 0); too large has no double (1e400).
      if (magnitude(text) < 0) { out = 0; return true; }
      return fail(JsonFault::NumberOutOfRange);
    }
    if (ec != std::errc() || end != text.data() + text.size()) return fail(JsonFault::Syntax);
    return true;
  }

  // The decimal exponent of the number's leading significant digit: negative for |x| < 1.
  static long magnitude(std::string_view text) {
    long position = 0;  // digits before the point, counted from the first significant one
    bool significant = false, after_point = false;
    long leading_zeros_after_point = 0;
    std::size_t k = text[0] == '-' ? 1 : 0;
    for (; k < text.size() && text[k] != 'e' && text[k] != 'E'; ++k) {
      char c = text[k];
      if (c == '.') { after_point = true; continue; }
      if (!significant && c == '0') { if (after_point) ++leading_zeros_after_point; continue; }
      significant = true;
      if (!after_point) ++position;
    }
    if (!significant) return -1;  // zero
    long exponent = 0;
    if (k < text.size()) exponent = std::strtol(std::string(text.substr(k + 1)).c_str(), nullptr, 10);
    long lead = position > 0 ? position - 1 : -(leading_zeros_after_point + 1);
    return lead + exponent;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  JsonFault fault_ = JsonFault::Syntax;
};

std::u16string utf16_code_units(std::string_view utf8) {
  std::u16string units;
  std::size_t i = 0;
  while (i < utf8.size()) {
    auto b = static_cast<unsigned char>(utf8[i]);
    std::uint32_t cp;
    std::size_t len;
    if (b < 0x80) { cp = b; len = 1; }
    else if (b < 0xE0) { cp = b & 0x1F; len = 2; }
    else if (b < 0xF0) { cp = b & 0x0F; len = 3; }
    else { cp = b & 0x07; len = 4; }
    for (std::size_t k = 1; k < len && i + k < utf8.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units += static_cast<char16_t>(0xD800 + (cp >> 10));
      units += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
    } else {
      units += static_cast<char16_t>(cp);
    }
  }
  return units;
}

// RFC 8785 section 3.2.2.2: only what JSON requires is escaped; '/' and non-ASCII are raw UTF-8.
void append_string(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void append_value(std::string& out, const Json& v) {
  switch (v.kind) {
    case Json::Kind::Null: out += "null"; return;
    case Json::Kind::False: out += "false"; return;
    case Json::Kind::True: out += "true"; return;
    case Json::Kind::Number: out += canonical_number(v.number); return;
    case Json::Kind::String: append_string(out, v.text); return;
    case Json::Kind::Array:
      out += '[';
      for (std::size_t k = 0; k < v.items.size(); ++k) {
        if (k) out += ',';
        append_value(out, v.items[k]);
      }
      out += ']';
      return;
    case Json::Kind::Object: {
      // Section 3.2.3: by names as UTF-16 code units, compared as unsigned numbers. "😀" (D83D DE00)
      // sorts before "\ue000", unlike UTF-8 byte order.
      std::vector<std::pair<std::u16string, const std::pair<std::string, Json>*>> order;
      for (const auto& m : v.members) order.emplace_back(utf16_code_units(m.first), &m);
      std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out += '{';
      for (std::size_t k = 0; k < order.size(); ++k) {
        if (k) out += ',';
        append_string(out, order[k].second->first);
        out += ':';
        append_value(out, order[k].second->second);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string canonical_number(double value) {
  if (value == 0) return "0";  // -0 is 0
  if (value < 0) return "-" + canonical_number(-value);
  // The shortest digits that read back as the same double, from std::to_chars: "d.ddde+XX".
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, result.ptr);
  std::size_t e = sci.find('e');
  std::string digits;
  for (std::size_t k = 0; k < e; ++k)
    if (sci[k] != '.') digits += sci[k];
  int k = static_cast<int>(digits.size());
  int n = std::atoi(sci.c_str() + e + 1) + 1;  // value = 0.digits x 10^n
  // ECMAScript's Number::toString, steps 6-10.
  if (k <= n && n <= 21) return digits + std::string(static_cast<std::size_t>(n - k), '0');
  if (0 < n && n <= 21) return digits.substr(0, static_cast<std::size_t>(n)) + "." + digits.substr(static_cast<std::size_t>(n));
  if (-6 < n && n <= 0) return "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
  int exponent = n - 1;
  std::string out = digits.substr(0, 1);
  if (k > 1) out += "." + digits.substr(1);
  out += exponent < 0 ? "e-" : "e+";
  out += std::to_string(exponent < 0 ? -exponent : exponent);
  return out;
}

std::string canonical_text(const Json& value) {
  std::string out;
  append_value(out, value);
  return out;
}

JsonText parse_json(std::string_view text) {
  JsonText result;
  if (!well_formed_utf8(text)) {
    result.fault = JsonFault::InvalidUtf8;
    return result;
  }
  Reader reader(text);
  result.fault = reader.read_document(result.value);
  if (result.fault == JsonFault::None) result.canonical = canonical_text(result.value);
  return result;
}

bool same_request_body(std::string_view a, std::string_view b) {
  JsonText x = parse_json(a), y = parse_json(b);
  return x.fault == JsonFault::None && y.fault == JsonFault::None && x.canonical == y.canonical;
}

}  // namespace grader::model
