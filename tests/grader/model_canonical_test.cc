// model_canonical_test.cc: the model's own RFC 8785 (grader/model/canonical.cc) on the RFC's examples: the
// number table of Appendix B, the sorting example of section 3.2.3 and the document of section 3.2.2; and
// the contract's refusals (docs/reference/fingerprint.md "What the lab rejects with 400").
#include "grader/model/canonical.h"

#include <bit>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

using namespace grader::model;

namespace {
std::string canon(std::string_view text) {
  JsonText parsed = parse_json(text);
  REQUIRE(parsed.fault == JsonFault::None);
  return parsed.canonical;
}
JsonFault fault_of(std::string_view text) { return parse_json(text).fault; }
}  // namespace

TEST_CASE("canonical numbers follow RFC 8785 Appendix B, bit pattern by bit pattern") {
  struct Row { std::uint64_t bits; const char* text; };
  const Row rows[] = {
      {0x0000000000000000, "0"},
      {0x8000000000000000, "0"},
      {0x0000000000000001, "5e-324"},
      {0x8000000000000001, "-5e-324"},
      {0x7fefffffffffffff, "1.7976931348623157e+308"},
      {0xffefffffffffffff, "-1.7976931348623157e+308"},
      {0x4340000000000000, "9007199254740992"},
      {0xc340000000000000, "-9007199254740992"},
      {0x4430000000000000, "295147905179352830000"},
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
      {0x43143ff3c1cb0959, "1424953923781206.2"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.text);
    CHECK(canonical_number(std::bit_cast<double>(row.bits)) == row.text);
    // ... and the text reads back as itself.
    CHECK(canon(row.text) == row.text);
  }
}

TEST_CASE("canonical numbers: the spellings the contract names are one value") {
  CHECK(canon("9007199254740993") == "9007199254740992");  // 2^53 + 1 goes through the double
  CHECK(canon("-0") == "0");
  CHECK(canon("1e21") == "1e+21");
  CHECK(canon("1E-7") == "1e-7");
  CHECK(canon("1e20") == "100000000000000000000");
  CHECK(canon("0.00001") == "0.00001");
  CHECK(canon("12345678901234567890") == "12345678901234567000");
  CHECK(canon("1e-400") == "0");  // in range: it is 0
  CHECK(canon("[1500, 1500.0, 1.5e3, 15E2]") == "[1500,1500,1500,1500]");
  CHECK(same_request_body(R"({"amount":1500,"currency":"USD"})", R"({ "currency": "\u0055SD", "amount": 1.5e3 })"));
  CHECK_FALSE(same_request_body(R"({"amount":1500})", R"({"amount":1600})"));
}

TEST_CASE("canonical members are sorted by UTF-16 code units (RFC 8785 section 3.2.3)") {
  const char* input = R"({
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis"
  })";
  CHECK(canon(input) ==
        "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\","
        "\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\","
        "\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}");
  CHECK(canon(R"({"\ue000":1,"\ud83d\ude00":2})") == "{\"\U0001F600\":2,\"\ue000\":1}");
}

TEST_CASE("the canonical form of RFC 8785 section 3.2.2's document, down to its bytes") {
  const char* input = R"({
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  })";
  CHECK(canon(input) ==
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
        "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
  // The fingerprint chapter's four spellings of one transfer.
  const char* transfer = R"({"amount":1500,"currency":"USD","from_account":1,"memo":"café 03/25","to_account":2})";
  CHECK(canon(R"({"memo":"café 03/25","currency":"USD","amount":1500,"to_account":2,"from_account":1})") == transfer);
  CHECK(canon(R"({"from_account":1,"to_account":2,"amount":1500,"currency":"USD","memo":"caf\u00e9 03\/25"})") == transfer);
}

TEST_CASE("what has no canonical form is refused, each with its own fault") {
  CHECK(fault_of(R"({"amount":1,"amount":2})") == JsonFault::DuplicateMember);
  CHECK(fault_of(R"({"a":1,"\u0061":2})") == JsonFault::DuplicateMember);
  CHECK(fault_of("[\"caf\xE9\"]") == JsonFault::InvalidUtf8);
  CHECK(fault_of("[\"\xC0\xAF\"]") == JsonFault::InvalidUtf8);
  CHECK(fault_of("[\"\xED\xA0\x80\"]") == JsonFault::InvalidUtf8);
  CHECK(fault_of(R"(["\ud800"])") == JsonFault::LoneSurrogate);
  CHECK(fault_of(R"(["\udc00\ud800"])") == JsonFault::LoneSurrogate);
  CHECK(fault_of("[1E400]") == JsonFault::NumberOutOfRange);
  CHECK(fault_of(std::string(65, '[') + std::string(65, ']')) == JsonFault::TooDeep);
  CHECK(fault_of(std::string(64, '[') + std::string(64, ']')) == JsonFault::None);
  CHECK(fault_of(R"({"a":1} x)") == JsonFault::Syntax);
  CHECK(fault_of("[NaN]") == JsonFault::Syntax);
  CHECK(fault_of("Infinity") == JsonFault::Syntax);
  CHECK(fault_of("\xEF\xBB\xBF[1]") == JsonFault::Syntax);
  CHECK(fault_of(std::string("[1]\0junk", 8)) == JsonFault::Syntax);
  CHECK(fault_of("[01]") == JsonFault::Syntax);
  CHECK(fault_of("") == JsonFault::Syntax);
  CHECK(std::string(json_fault_type(JsonFault::LoneSurrogate)) == "json-lone-surrogate");
}
