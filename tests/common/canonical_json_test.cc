// canonical_json_test.cc: unit tests of common/canonical_json.h, the RFC 8785 (JCS) canonicalizer.
//
// Interface: Catch2 v2 test cases (main() is in tests/catch_main.cc), tag [canonical_json].
// Covers the RFC's own examples (sections 3.2.2 to 3.2.4 and Appendix B), every rejection kind,
// and at least 1000 randomized documents. Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/canonical_json.h"
#include "common/hex.h"

namespace {

using nlohmann::json;

// The canonical text of a document that must be accepted.
std::string canon(std::string_view text) {
  auto result = lab::parse_canonical_json(text);
  if (const auto* error = std::get_if<lab::JsonError>(&result)) {
    FAIL("rejected " << text << ": " << lab::rejection_name(error->why) << ": " << error->detail);
  }
  return std::get<lab::CanonicalJson>(result).text;
}

// The error for a document that must be refused.
lab::JsonError rejection(std::string_view text) {
  auto result = lab::parse_canonical_json(text);
  if (const auto* accepted = std::get_if<lab::CanonicalJson>(&result)) {
    FAIL("accepted " << text << " as " << accepted->text);
  }
  return std::get<lab::JsonError>(result);
}

double from_bits(std::uint64_t bits) { return std::bit_cast<double>(bits); }

// strtod is the reference reader: a canonical number must read back as the very same double.
double read_back(const std::string& number) {
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  REQUIRE(end == number.c_str() + number.size());
  return value;
}

// The bytes as lowercase hex pairs with a space between them ("7b 22"), for bytes that are not readable text.
std::string hex_bytes(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += lab::lowercase_hex(std::span(&byte, 1));
  }
  return out;
}

// A document that must be refused, and the detail it must be refused with.
struct Refusal {
  std::string input;
  std::string detail;
};

// Each input is refused as `why`, with exactly its detail.
void check_refusals(std::span<const Refusal> refusals, lab::JsonRejection why) {
  for (const Refusal& r : refusals) {
    INFO("input " << r.input << " (bytes " << hex_bytes(r.input) << ")");
    const auto error = rejection(r.input);
    CHECK(error.why == why);
    CHECK(error.detail == r.detail);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

TEST_CASE("canonical JSON writes the RFC 8785 Appendix B number samples exactly", "[canonical_json]") {
  struct Sample {
    std::uint64_t ieee754;
    std::string_view text;
  };
  // RFC 8785 Appendix B, "Number Serialization Samples".
  const Sample samples[] = {
      {0x0000000000000000, "0"},                           // zero
      {0x8000000000000000, "0"},                           // minus zero
      {0x0000000000000001, "5e-324"},                      // min pos number
      {0x8000000000000001, "-5e-324"},                     // min neg number
      {0x7fefffffffffffff, "1.7976931348623157e+308"},     // max pos number
      {0xffefffffffffffff, "-1.7976931348623157e+308"},    // max neg number
      {0x4340000000000000, "9007199254740992"},            // max pos int
      {0xc340000000000000, "-9007199254740992"},           // max neg int
      {0x4430000000000000, "295147905179352830000"},       // ~2**68
      {0x44b52d02c7e14af5, "9.999999999999997e+22"},
      {0x44b52d02c7e14af6, "1e+23"},
      {0x44b52d02c7e14af7, "1.0000000000000001e+23"},
      {0x444b1ae4d6e2ef4e, "999999999999999700000"},
      {0x444b1ae4d6e2ef4f, "999999999999999900000"},
      {0x444b1ae4d6e2ef50, "1e+21"},
      {0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
      {0x3eb0c6f7a0b5ed8d, "0.000001"},
      {0x41b3de4355555553, "333333333.3333332"},
      {0x41b3de4355555554, "333333333.33333325"},
      {0x41b3de4355555555, "333333333.3333333"},
      {0x41b3de4355555556, "333333333.3333334"},
      {0x41b3de4355555557, "333333333.33333343"},
      {0xbecbf647612f3696, "-0.0000033333333333333333"},
      {0x43143ff3c1cb0959, "1424953923781206.2"},           // round to even
  };
  for (const Sample& sample : samples) {
    const double value = from_bits(sample.ieee754);
    INFO("IEEE-754 bits 0x" << std::hex << sample.ieee754);
    const std::string text = lab::canonicalize(json(value));
    CHECK(text == sample.text);
    CHECK(std::bit_cast<std::uint64_t>(read_back(text)) == std::bit_cast<std::uint64_t>(value == 0 ? 0.0 : value));
    // The same double written as JSON text gives the same canonical text.
    CHECK(canon(std::string(sample.text)) == sample.text);
  }
}

TEST_CASE("canonical JSON refuses to serialize the Appendix B NaN and Infinity samples", "[canonical_json]") {
  CHECK_THROWS_AS(lab::canonicalize(json(from_bits(0x7fffffffffffffff))), std::invalid_argument);  // NaN
  CHECK_THROWS_AS(lab::canonicalize(json(from_bits(0x7ff0000000000000))), std::invalid_argument);  // Infinity
  CHECK_THROWS_AS(lab::canonicalize(json(-std::numeric_limits<double>::infinity())), std::invalid_argument);
  CHECK_THROWS_AS(lab::canonicalize(json::array({1, std::nan("")})), std::invalid_argument);
}

TEST_CASE("canonical JSON prints numbers the way ECMAScript does around its format thresholds",
          "[canonical_json]") {
  struct Case {
    std::string_view input;
    std::string_view canonical;
  };
  const Case cases[] = {
      {"1.0", "1"},
      {"12.50", "12.5"},
      {"-0", "0"},
      {"-0.0", "0"},
      {"0e10", "0"},
      {"1E3", "1000"},
      {"0.1", "0.1"},
      {"1e20", "100000000000000000000"},        // 21 digits: still plain
      {"1e21", "1e+21"},                        // 22 digits: exponent form
      {"123456789012345678901", "123456789012345680000"},
      {"1.5e21", "1.5e+21"},
      {"0.000001", "0.000001"},                 // 1e-6: still plain
      {"0.0000012345", "0.0000012345"},
      {"1e-7", "1e-7"},                         // below 1e-6: exponent form, no zero padding
      {"1.5e-7", "1.5e-7"},
      {"-1.5e-7", "-1.5e-7"},
      {"1e+300", "1e+300"},
      {"4.50", "4.5"},
      {"2e-3", "0.002"},
      {"0.000000000000000000000000001", "1e-27"},
      {"1E30", "1e+30"},
      {"333333333.33333329", "333333333.3333333"},
      {"0.30000000000000004", "0.30000000000000004"},
  };
  for (const Case& c : cases) {
    INFO("input " << c.input);
    CHECK(canon(c.input) == c.canonical);
  }
}

TEST_CASE("canonical JSON treats every number as a double, integers included", "[canonical_json]") {
  CHECK(canon("12345678901234567890") == "12345678901234567000");
  CHECK(canon("9007199254740993") == "9007199254740992");          // 2^53 + 1 is not a double
  CHECK(canon("-9223372036854775808") == "-9223372036854776000");  // INT64_MIN
  CHECK(canon("18446744073709551615") == "18446744073709552000");  // UINT64_MAX
  CHECK(canon("100000000000000000000000") == "1e+23");             // beyond uint64: nlohmann reads a double

  // The parsed value keeps integers exact, as nlohmann parses them, for field validation.
  const auto parsed = std::get<lab::CanonicalJson>(lab::parse_canonical_json(R"({"amount":12345678901234567890,"n":-5,"x":1.5})"));
  CHECK(parsed.value["amount"].is_number_unsigned());
  CHECK(parsed.value["amount"].get<std::uint64_t>() == 12345678901234567890ULL);
  CHECK(parsed.value["n"].is_number_integer());
  CHECK(parsed.value["n"].get<std::int64_t>() == -5);
  CHECK(parsed.value["x"].is_number_float());
  CHECK(parsed.text == R"({"amount":12345678901234567000,"n":-5,"x":1.5})");
}

TEST_CASE("canonical JSON accepts numbers that underflow to zero", "[canonical_json]") {
  CHECK(canon("1e-400") == "0");
  CHECK(canon("-1e-400") == "0");
  CHECK(canon("[2.4703282292062328e-324]") == "[5e-324]");  // rounds up to the smallest subnormal
}

TEST_CASE("canonical JSON converts integers to the same double strtod reads", "[canonical_json]") {
  std::mt19937 rng(20240611);  // fixed: this checks the compiler's integer conversion, not our code paths
  std::uniform_int_distribution<std::uint64_t> any_u64;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t u = any_u64(rng) >> (rng() % 64);
    const auto s = static_cast<std::int64_t>(any_u64(rng)) >> (rng() % 64);
    for (const std::string& decimal : {std::to_string(u), std::to_string(s)}) {
      const std::string text = canon(decimal);
      INFO("integer " << decimal << " canonical " << text);
      REQUIRE(read_back(text) == read_back(decimal));
    }
  }
}

TEST_CASE("canonical JSON numbers read back as the identical double for random bit patterns",
          "[canonical_json]") {
  std::mt19937 rng(7);
  constexpr int kPatterns = 200000;
  for (int i = 0; i < kPatterns; ++i) {
    const std::uint64_t bits = (std::uint64_t{rng()} << 32) | rng();
    const double value = from_bits(bits);
    if (!std::isfinite(value)) continue;
    const std::string text = lab::canonicalize(json(value));
    INFO("bits 0x" << std::hex << bits << " canonical " << text);
    const double expected = value == 0 ? 0.0 : value;  // -0 is written as 0
    REQUIRE(std::bit_cast<std::uint64_t>(read_back(text)) == std::bit_cast<std::uint64_t>(expected));
  }
}

// ---------------------------------------------------------------------------------------------
// The RFC's examples
// ---------------------------------------------------------------------------------------------

TEST_CASE("canonical JSON reproduces the RFC 8785 section 3.2.2 example and its section 3.2.4 bytes",
          "[canonical_json]") {
  const std::string input = R"({
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
})";
  const std::string expected =
      "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
      "\"string\":\"\xE2\x82\xAC$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
  const std::string text = canon(input);
  CHECK(text == expected);
  // Section 3.2.4, "UTF-8 Generation".
  CHECK(hex_bytes(text) ==
        "7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72 "
        "75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a "
        "5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31 "
        "65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37 "
        "5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30 "
        "30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d");
}

TEST_CASE("canonical JSON sorts members by UTF-16 code units as in RFC 8785 section 3.2.3",
          "[canonical_json]") {
  const std::string input = R"({
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
})";
  const std::string expected =
      "{\"\\r\":\"Carriage Return\","
      "\"1\":\"One\","
      "\"\xC2\x80\":\"Control\","
      "\"\xC3\xB6\":\"Latin Small Letter O With Diaeresis\","
      "\"\xE2\x82\xAC\":\"Euro Sign\","
      "\"\xF0\x9F\x98\x80\":\"Emoji: Grinning Face\","
      "\"\xEF\xAC\xB3\":\"Hebrew Letter Dalet With Dagesh\"}";
  CHECK(canon(input) == expected);
}

TEST_CASE("canonical JSON sorts astral names before U+E000..U+FFFF, unlike UTF-8 byte order",
          "[canonical_json]") {
  // UTF-8 bytes (and code points) would put U+1F600 last; its UTF-16 form D83D DE00 puts it first.
  CHECK(canon(R"({"\uffff":1,"\ud83d\ude00":2,"\ue000":3,"z":4})") ==
        "{\"z\":4,\"\xF0\x9F\x98\x80\":2,\"\xEE\x80\x80\":3,\"\xEF\xBF\xBF\":1}");
  // A shorter name that is a prefix of a longer one comes first.
  CHECK(canon(R"({"ab":1,"a":2,"":3})") == R"({"":3,"a":2,"ab":1})");
  // Upper case before lower case: plain code unit values, no locale.
  CHECK(canon(R"({"b":1,"B":2,"a":3,"A":4})") == R"({"A":4,"B":2,"a":3,"b":1})");
}

TEST_CASE("canonical JSON sorts nested objects and keeps array order", "[canonical_json]") {
  CHECK(canon(R"({"b":[{"z":1,"a":2},3,[{"y":null,"x":true}]],"a":{"d":false,"c":{}}})") ==
        R"({"a":{"c":{},"d":false},"b":[{"a":2,"z":1},3,[{"x":true,"y":null}]]})");
}

// ---------------------------------------------------------------------------------------------
// Strings and whitespace
// ---------------------------------------------------------------------------------------------

TEST_CASE("canonical JSON escapes each control character the way RFC 8785 prescribes",
          "[canonical_json]") {
  for (unsigned c = 0; c < 0x20; ++c) {
    char input[16];
    std::snprintf(input, sizeof input, "\"\\u%04X\"", c);  // upper-case hex in, to be normalized
    std::string expected;
    switch (c) {
      case 0x08: expected = R"("\b")"; break;
      case 0x09: expected = R"("\t")"; break;
      case 0x0A: expected = R"("\n")"; break;
      case 0x0C: expected = R"("\f")"; break;
      case 0x0D: expected = R"("\r")"; break;
      default: {
        char escaped[16];
        std::snprintf(escaped, sizeof escaped, "\"\\u%04x\"", c);  // lower-case hex out
        expected = escaped;
      }
    }
    INFO("control character " << c);
    CHECK(canon(input) == expected);
  }
  CHECK(canon(R"("\"\\")") == R"("\"\\")");
}

TEST_CASE("canonical JSON leaves slash, DEL and non-ASCII characters unescaped", "[canonical_json]") {
  CHECK(canon(R"("a\/b")") == R"("a/b")");
  CHECK(canon(R"("a/b")") == R"("a/b")");
  CHECK(canon(R"("\u007f")") == "\"\x7F\"");
  CHECK(canon(R"("\u00e9")") == "\"\xC3\xA9\"");
  CHECK(canon(R"("\u20AC")") == "\"\xE2\x82\xAC\"");
  CHECK(canon(R"("\ud83d\ude00")") == "\"\xF0\x9F\x98\x80\"");
  CHECK(canon(R"("\u2028\u2029")") == "\"\xE2\x80\xA8\xE2\x80\xA9\"");  // JavaScript line separators stay raw too
}

TEST_CASE("canonical JSON gives escaped and raw spellings of a string the same text", "[canonical_json]") {
  CHECK(canon(R"({"note":"caf\u00e9"})") == canon("{\"note\":\"caf\xC3\xA9\"}"));
  CHECK(canon(R"({"url":"https:\/\/bank.example\/x"})") == canon(R"({"url":"https://bank.example/x"})"));
  CHECK(canon(R"({"\u0061mount":1})") == canon(R"({"amount":1})"));
}

TEST_CASE("canonical JSON removes whitespace outside strings and keeps it inside", "[canonical_json]") {
  CHECK(canon(" \t\r\n{ \"a b\" :\n[ 1 ,\t2 ] , \"c\" : \" x \" }\n\n") == R"({"a b":[1,2],"c":" x "})");
}

TEST_CASE("canonical JSON writes literals, empty containers and top-level scalars", "[canonical_json]") {
  CHECK(canon("[true,false,null]") == "[true,false,null]");
  CHECK(canon(" {} ") == "{}");
  CHECK(canon("[ ]") == "[]");
  CHECK(canon("42") == "42");
  CHECK(canon("\"x\"") == "\"x\"");
  CHECK(canon("null") == "null");
}

TEST_CASE("canonicalize of a parsed value gives the parsed canonical text", "[canonical_json]") {
  const auto parsed = std::get<lab::CanonicalJson>(
      lab::parse_canonical_json(R"({"to":"DE89 3704","amount":1250.00,"meta":{"b":[1,2],"a":"\u00e9"}})"));
  CHECK(lab::canonicalize(parsed.value) == parsed.text);
  CHECK(parsed.text == "{\"amount\":1250,\"meta\":{\"a\":\"\xC3\xA9\",\"b\":[1,2]},\"to\":\"DE89 3704\"}");
}

TEST_CASE("canonicalize refuses strings that are not UTF-8 and binary values", "[canonical_json]") {
  CHECK_THROWS_AS(lab::canonicalize(json("\xC3")), std::invalid_argument);
  CHECK_THROWS_AS(lab::canonicalize(json::object({{"\xFF", 1}})), std::invalid_argument);
  CHECK_THROWS_AS(lab::canonicalize(json::binary({1, 2, 3})), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Rejections
// ---------------------------------------------------------------------------------------------

TEST_CASE("canonical JSON rejection names are the stable short names", "[canonical_json]") {
  CHECK(lab::rejection_name(lab::JsonRejection::Syntax) == "syntax");
  CHECK(lab::rejection_name(lab::JsonRejection::DuplicateMember) == "duplicate-member");
  CHECK(lab::rejection_name(lab::JsonRejection::InvalidUtf8) == "invalid-utf8");
  CHECK(lab::rejection_name(lab::JsonRejection::LoneSurrogate) == "lone-surrogate");
  CHECK(lab::rejection_name(lab::JsonRejection::NumberOutOfRange) == "number-out-of-range");
  CHECK(lab::rejection_name(lab::JsonRejection::TooDeep) == "too-deep");
}

TEST_CASE("canonical JSON rejects a duplicate member name, also when it is spelled with escapes",
          "[canonical_json]") {
  auto error = rejection(R"({"amount":1,"amount":2})");
  CHECK(error.why == lab::JsonRejection::DuplicateMember);
  CHECK(error.detail == R"(duplicate member name "amount")");

  error = rejection(R"({"a":1,"\u0061":2})");
  CHECK(error.why == lab::JsonRejection::DuplicateMember);
  CHECK(error.detail == R"(duplicate member name "a")");

  error = rejection(R"({"x":{"caf\u00e9":1,"café":2}})");
  CHECK(error.why == lab::JsonRejection::DuplicateMember);

  error = rejection(R"({"\/":1,"/":2})");
  CHECK(error.why == lab::JsonRejection::DuplicateMember);

  // The same name in different objects is fine.
  CHECK(canon(R"({"a":{"a":1},"b":[{"a":2},{"a":3}]})") == R"({"a":{"a":1},"b":[{"a":2},{"a":3}]})");
}

TEST_CASE("canonical JSON rejects invalid UTF-8 and says which byte and where", "[canonical_json]") {
  const Refusal refusals[] = {
      {"{\"note\":\"caf\xC3\"}", "invalid UTF-8 byte 0xC3 at offset 12 (truncated sequence)"},
      {"\"\xC3", "invalid UTF-8 byte 0xC3 at offset 1 (truncated sequence)"},
      {"\"\xE2\x82\"", "invalid UTF-8 byte 0xE2 at offset 1 (truncated sequence)"},
      {"\"\xC0\xAF\"", "invalid UTF-8 byte 0xC0 at offset 1 (overlong encoding)"},  // overlong '/'
      {"\"\xE0\x80\xAF\"", "invalid UTF-8 byte 0xE0 at offset 1 (overlong encoding)"},
      {"\"\xF0\x80\x80\xAF\"", "invalid UTF-8 byte 0xF0 at offset 1 (overlong encoding)"},
      {"\"\xED\xA0\x80\"", "invalid UTF-8 byte 0xED at offset 1 (UTF-16 surrogate encoded as UTF-8)"},
      {"\"\xF4\x90\x80\x80\"", "invalid UTF-8 byte 0xF4 at offset 1 (code point beyond U+10FFFF)"},
      {"\"\xF5\x80\x80\x80\"", "invalid UTF-8 byte 0xF5 at offset 1 (byte that never occurs in UTF-8)"},
      {"\"\xFF\"", "invalid UTF-8 byte 0xFF at offset 1 (byte that never occurs in UTF-8)"},
      {"\"\x80\"", "invalid UTF-8 byte 0x80 at offset 1 (continuation byte without a lead byte)"},
      {"[1, \xA9]", "invalid UTF-8 byte 0xA9 at offset 4 (continuation byte without a lead byte)"},
      {"{\"\xE9t\xE9\":1}", "invalid UTF-8 byte 0xE9 at offset 2 (truncated sequence)"},  // Latin-1 "été"
  };
  check_refusals(refusals, lab::JsonRejection::InvalidUtf8);
  // The largest code point and the last ones before and after the surrogates are fine.
  CHECK(canon("\"\xF4\x8F\xBF\xBF\xED\x9F\xBF\xEE\x80\x80\"") == "\"\xF4\x8F\xBF\xBF\xED\x9F\xBF\xEE\x80\x80\"");
}

TEST_CASE("canonical JSON rejects lone surrogate escapes", "[canonical_json]") {
  const Refusal refusals[] = {
      {R"(["\ud800"])",
       R"(lone surrogate \ud800 at offset 2 (a high surrogate must be followed by a \uDC00..\uDFFF escape))"},
      {R"(["\udc00"])",
       R"(lone surrogate \udc00 at offset 2 (a low surrogate must follow a \uD800..\uDBFF escape))"},
      {R"(["ab\uD800\u0041"])",
       R"(lone surrogate \uD800 at offset 4 (a high surrogate must be followed by a \uDC00..\uDFFF escape))"},
      {R"(["\ud800\ud800"])",
       R"(lone surrogate \ud800 at offset 2 (a high surrogate must be followed by a \uDC00..\uDFFF escape))"},
      {R"(["\ud83d\ude00\ude00"])",
       R"(lone surrogate \ude00 at offset 14 (a low surrogate must follow a \uD800..\uDBFF escape))"},
      {R"({"\\\ud800x":1})",
       R"(lone surrogate \ud800 at offset 4 (a high surrogate must be followed by a \uDC00..\uDFFF escape))"},
      {R"(["\ud800)",
       R"(lone surrogate \ud800 at offset 2 (a high surrogate must be followed by a \uDC00..\uDFFF escape))"},
  };
  check_refusals(refusals, lab::JsonRejection::LoneSurrogate);
  // A backslash followed by "ud800" is an escaped backslash, not a surrogate.
  CHECK(canon(R"(["\\ud800"])") == R"(["\\ud800"])");
}

TEST_CASE("canonical JSON rejects numbers beyond the range of a double", "[canonical_json]") {
  auto error = rejection(R"({"amount":1e400})");
  CHECK(error.why == lab::JsonRejection::NumberOutOfRange);
  CHECK(error.detail == "number 1e400 at offset 10 is too large for an IEEE-754 double");

  CHECK(rejection("-1.8e308").why == lab::JsonRejection::NumberOutOfRange);
  CHECK(rejection("[1" + std::string(400, '0') + "]").why == lab::JsonRejection::NumberOutOfRange);
  CHECK(canon("1.7976931348623157e308") == "1.7976931348623157e+308");
}

TEST_CASE("canonical JSON rejects NaN and Infinity as syntax errors that name them", "[canonical_json]") {
  const Refusal refusals[] = {
      {"[NaN]", "NaN at offset 1 is not JSON: JSON numbers have no NaN or Infinity"},
      {R"({"x": Infinity})", "Infinity at offset 6 is not JSON: JSON numbers have no NaN or Infinity"},
      {"[1, -Infinity]", "-Infinity at offset 4 is not JSON: JSON numbers have no NaN or Infinity"},
      {"+Infinity", "+Infinity at offset 0 is not JSON: JSON numbers have no NaN or Infinity"},
  };
  check_refusals(refusals, lab::JsonRejection::Syntax);
}

TEST_CASE("canonical JSON rejects nesting deeper than kMaxJsonDepth", "[canonical_json]") {
  const auto nested_arrays = [](std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  CHECK(canon(nested_arrays(lab::kMaxJsonDepth)) == nested_arrays(lab::kMaxJsonDepth));

  auto error = rejection(nested_arrays(lab::kMaxJsonDepth + 1));
  CHECK(error.why == lab::JsonRejection::TooDeep);
  CHECK(error.detail == "nesting deeper than 64 arrays and objects at offset 64");

  std::string objects;
  for (std::size_t i = 0; i <= lab::kMaxJsonDepth; ++i) objects += R"({"[{":)";
  objects += "1" + std::string(lab::kMaxJsonDepth + 1, '}');
  error = rejection(objects);
  CHECK(error.why == lab::JsonRejection::TooDeep);
  CHECK(error.detail == "nesting deeper than 64 arrays and objects at offset " +
                            std::to_string(lab::kMaxJsonDepth * 6));

  // A hostile body a million levels deep is refused quickly, without recursion.
  CHECK(rejection(std::string(1'000'000, '[')).why == lab::JsonRejection::TooDeep);
}

TEST_CASE("canonical JSON rejects trailing content and other syntax errors", "[canonical_json]") {
  const Refusal refusals[] = {
      {R"({"a":1} x)", "syntax error at offset 8: invalid literal; expected end of input"},
      {R"({"a":1}{"b":2})", "syntax error at offset 7: unexpected '{'; expected end of input"},
      {"", "syntax error at offset 0: unexpected end of input; expected '[', '{', or a literal"},
      {"   ", "syntax error at offset 3: unexpected end of input; expected '[', '{', or a literal"},
      {"[1,]", "syntax error at offset 3: unexpected ']'; expected '[', '{', or a literal"},
      {R"({"a":1,})", "syntax error at offset 7: unexpected '}'; expected string literal"},
      {"[01]", "syntax error at offset 2: unexpected number literal; expected ']'"},
      {"[1.]", "syntax error at offset 3: invalid number; expected digit after '.'"},
      {"{'a':1}", "syntax error at offset 1: invalid literal; expected string literal"},
      {"[1] // comment", "syntax error at offset 4: invalid literal; expected end of input"},
      {"\"tab\there\"", "syntax error at offset 4: invalid string: control character U+0009 (HT) must be escaped to \\u0009 or \\t"},
      {R"(["\x"])", "syntax error at offset 3: invalid string: forbidden character after backslash"},
      {"\xEF\xBB\xBF{}", "byte order mark at offset 0: JSON text must not start with U+FEFF (RFC 8259 section 8.1)"},
      // nlohmann alone would stop at the NUL and accept "[1]".
      {std::string("[1]\0junk", 8), "raw NUL byte at offset 3 (JSON allows U+0000 only as the escape \\u0000)"},
      {std::string("\"a\0\"", 4), "raw NUL byte at offset 2 (JSON allows U+0000 only as the escape \\u0000)"},
  };
  check_refusals(refusals, lab::JsonRejection::Syntax);
}

// ---------------------------------------------------------------------------------------------
// Randomized documents
// ---------------------------------------------------------------------------------------------

namespace {

// Builds random JSON values (the model) and random textual renderings of them: members shuffled,
// whitespace sprinkled, characters escaped or not, numbers spelled in several equivalent ways.
class RandomDocuments {
 public:
  explicit RandomDocuments(std::uint32_t seed) : rng_(seed) {}

  // A request body: an object of a few members, nested values below.
  json document() {
    json object = json::object();
    for (int i = 1 + pick(8); i > 0; --i) object[text(4)] = value(1);
    return object;
  }

  json value(int depth) {
    constexpr int kMaxModelDepth = 5;
    const int kind = pick(depth >= kMaxModelDepth ? 4 : 6);
    switch (kind) {
      case 0: return pick(3) == 0 ? json(nullptr) : json(pick(2) == 0);
      case 1: return number();
      case 2:
      case 3: return json(text(8));
      case 4: {
        json array = json::array();
        for (int i = pick(5); i > 0; --i) array.push_back(value(depth + 1));
        return array;
      }
      default: {
        json object = json::object();
        for (int i = pick(6); i > 0; --i) object[text(4)] = value(depth + 1);
        return object;
      }
    }
  }

  std::string render(const json& value) {
    std::string out;
    space(out);
    render_value(value, out);
    space(out);
    return out;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  json number() {
    switch (pick(6)) {
      case 0: {  // any finite double, subnormals included
        while (true) {
          const double d = std::bit_cast<double>((std::uint64_t{rng_()} << 32) | rng_());
          if (std::isfinite(d)) return json(d);
        }
      }
      case 1: return json(static_cast<double>(std::uniform_int_distribution<int>(0, 10'000'000)(rng_)) / 100);
      case 2: return json(static_cast<std::int64_t>((std::uint64_t{rng_()} << 32) | rng_()));
      case 3: return json(std::uniform_int_distribution<std::int64_t>(-1000, 1000)(rng_));
      case 4: {
        constexpr double kEdges[] = {0.0, -0.0, 1e21, 1e-7, 1e-6, 5e-324, 1.7976931348623157e308,
                                     9007199254740993.0, 0.1, 1e23};
        return json(kEdges[pick(static_cast<int>(std::size(kEdges)))]);
      }
      default: {  // a double with an exponent at the edges of ECMAScript's plain format
        const double mantissa = std::uniform_real_distribution<double>(1, 10)(rng_);
        return json(mantissa * std::pow(10.0, std::uniform_int_distribution<int>(-9, 23)(rng_)));
      }
    }
  }

  char32_t code_point() {
    switch (pick(8)) {
      case 0: return static_cast<char32_t>(pick(0x20));                      // control
      case 1: return U"\"\\/"[pick(3)];                                       // needs care
      case 2: return static_cast<char32_t>(0x80 + pick(0x780));               // 2-byte UTF-8
      case 3: return static_cast<char32_t>(0xE000 + pick(0x2000));            // sorts after astral in UTF-16
      case 4: return static_cast<char32_t>(0x10000 + pick(0x100000));         // astral
      case 5: return static_cast<char32_t>(0x800 + pick(0xD800 - 0x800));     // 3-byte, below surrogates
      default: return static_cast<char32_t>(0x20 + pick(0x5F));               // printable ASCII
    }
  }

  std::string text(int max_length) {
    std::string out;
    for (int i = pick(max_length + 1); i > 0; --i) append_utf8(code_point(), out);
    return out;
  }

  static void append_utf8(char32_t c, std::string& out) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  void space(std::string& out) {
    constexpr std::string_view kWhitespace = " \t\n\r";
    for (int i = pick(4) == 0 ? pick(3) + 1 : 0; i > 0; --i) out += kWhitespace[pick(4)];
  }

  void escape_unit(unsigned unit, std::string& out) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, pick(2) == 0 ? "\\u%04x" : "\\u%04X", unit);
    out += buffer;
  }

  void render_string(const std::string& utf8, std::string& out) {
    out += '"';
    std::size_t i = 0;
    while (i < utf8.size()) {
      const auto lead = static_cast<unsigned char>(utf8[i]);
      const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
      char32_t c = length == 1 ? lead : lead & (0xFF >> (length + 1));
      for (std::size_t k = 1; k < length; ++k) c = (c << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
      const std::string raw = utf8.substr(i, length);
      i += length;
      const char* short_escape = nullptr;
      switch (c) {
        case '"': short_escape = "\\\""; break;
        case '\\': short_escape = "\\\\"; break;
        case '/': short_escape = "\\/"; break;
        case '\b': short_escape = "\\b"; break;
        case '\f': short_escape = "\\f"; break;
        case '\n': short_escape = "\\n"; break;
        case '\r': short_escape = "\\r"; break;
        case '\t': short_escape = "\\t"; break;
        default: break;
      }
      const bool must_escape = c < 0x20 || c == '"' || c == '\\';
      const int style = pick(3);  // 0: raw if allowed, 1: short escape if any, 2: \u escape
      if (style == 0 && !must_escape) {
        out += raw;
      } else if (style == 1 && short_escape != nullptr) {
        out += short_escape;
      } else if (c >= 0x10000) {
        const char32_t v = c - 0x10000;
        escape_unit(0xD800 + (v >> 10), out);
        escape_unit(0xDC00 + (v & 0x3FF), out);
      } else {
        escape_unit(c, out);
      }
    }
    out += '"';
  }

  void render_number(const json& number, std::string& out) {
    if (!number.is_number_float()) {
      out += number.dump();  // integers as decimal digits
      return;
    }
    const double d = number.get<double>();
    char buffer[64];
    switch (pick(4)) {
      case 0: {  // shortest round-trip, whatever layout to_chars picks
        const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, d);
        out.append(buffer, end);
        break;
      }
      case 1: std::snprintf(buffer, sizeof buffer, "%.17g", d); out += buffer; break;
      case 2: std::snprintf(buffer, sizeof buffer, "%.17E", d); out += buffer; break;
      default: {  // exact decimal expansion of small-exponent values, padded with zeros
        std::snprintf(buffer, sizeof buffer, "%.25e", d);
        out += buffer;
      }
    }
  }

  void render_value(const json& value, std::string& out) {
    switch (value.type()) {
      case json::value_t::object: {
        std::vector<const std::string*> names;
        for (const auto& [name, member] : value.items()) names.push_back(&name);
        std::shuffle(names.begin(), names.end(), rng_);
        out += '{';
        for (std::size_t i = 0; i < names.size(); ++i) {
          if (i > 0) out += ',';
          space(out);
          render_string(*names[i], out);
          space(out);
          out += ':';
          space(out);
          render_value(value.at(*names[i]), out);
          space(out);
        }
        out += '}';
        break;
      }
      case json::value_t::array: {
        out += '[';
        for (std::size_t i = 0; i < value.size(); ++i) {
          if (i > 0) out += ',';
          space(out);
          render_value(value[i], out);
          space(out);
        }
        out += ']';
        break;
      }
      case json::value_t::string: render_string(value.get_ref<const std::string&>(), out); break;
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
      case json::value_t::number_float: render_number(value, out); break;
      default: out += value.dump(); break;  // null, true, false
    }
  }

  std::mt19937 rng_;
};

// The doubles a model holds, as bit patterns, -0 folded into 0 (JCS writes both as "0").
void collect_doubles(const json& value, std::vector<std::uint64_t>& out) {
  if (value.is_structured()) {
    for (const json& child : value) collect_doubles(child, out);
  } else if (value.is_number()) {
    const double d = value.get<double>();
    out.push_back(std::bit_cast<std::uint64_t>(d == 0 ? 0.0 : d));
  }
}

// The number tokens of canonical text, read back with strtod.
std::vector<std::uint64_t> numbers_read_back(std::string_view canonical) {
  std::vector<std::uint64_t> out;
  bool in_string = false;
  for (std::size_t i = 0; i < canonical.size(); ++i) {
    const char c = canonical[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t end = canonical.find_first_not_of("0123456789.e+-", i);
      const std::string token(canonical.substr(i, end - i));
      out.push_back(std::bit_cast<std::uint64_t>(read_back(token)));
      i = end - 1;
    }
  }
  return out;
}

std::uint32_t random_documents_seed() {
  if (const char* fixed = std::getenv("LAB_CANON_SEED")) return static_cast<std::uint32_t>(std::strtoul(fixed, nullptr, 10));
  return std::random_device{}();
}

}  // namespace

TEST_CASE("canonical JSON of 1000 random documents is stable under reordering, whitespace and escaping",
          "[canonical_json][random]") {
  const std::uint32_t seed = random_documents_seed();
  std::cout << "canonical JSON random documents: seed " << seed << " (rerun with LAB_CANON_SEED=" << seed
            << ")\n";
  INFO("seed " << seed << " (rerun with LAB_CANON_SEED=" << seed << ")");
  RandomDocuments documents(seed);
  constexpr int kDocuments = 1000;
  constexpr int kRenderingsPerDocument = 3;
  for (int n = 0; n < kDocuments; ++n) {
    const json model = documents.document();
    const std::string first_text = documents.render(model);
    INFO("document " << n << ": " << first_text);
    const auto parsed = lab::parse_canonical_json(first_text);
    if (const auto* error = std::get_if<lab::JsonError>(&parsed)) {
      FAIL("rejected: " << lab::rejection_name(error->why) << ": " << error->detail);
    }
    const auto& canonical = std::get<lab::CanonicalJson>(parsed);
    CHECK(canonical.value == model);
    CHECK(lab::canonicalize(canonical.value) == canonical.text);

    // Canonicalizing canonical text changes nothing.
    REQUIRE(canon(canonical.text) == canonical.text);

    // Other member orders, whitespace and escapes: the same canonical text.
    for (int r = 0; r < kRenderingsPerDocument; ++r) {
      const std::string other = documents.render(model);
      INFO("other rendering: " << other);
      REQUIRE(canon(other) == canonical.text);
    }

    // Every number in the canonical text reads back as the identical double.
    std::vector<std::uint64_t> expected;
    collect_doubles(model, expected);
    std::vector<std::uint64_t> actual = numbers_read_back(canonical.text);
    std::sort(expected.begin(), expected.end());
    std::sort(actual.begin(), actual.end());
    REQUIRE(actual == expected);
  }
}
