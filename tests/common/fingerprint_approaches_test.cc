// fingerprint_approaches_test.cc: why stage 3 fingerprints the RFC 8785 form and not a re-serialization.
// docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
//
// A popular shortcut is to parse the body and serialize it again with sorted keys: Python's
// json.dumps(sort_keys=True), or nlohmann's dump() (its objects are std::maps, so it sorts too). Both keep
// a number's spelling class: an integer stays an integer, a float is printed as a float. So 1500 and
// 1.5e3, one value and one request, give two fingerprints, and the retry of a paid request is answered 422.
// These tests pin that down for nlohmann's dump(), the shortcut a C++ learner reaches for.
#include <catch2/catch.hpp>

#include <string>

#include "common/canonical_json.h"
#include "common/fingerprint.h"

using namespace lab;

namespace {

std::string rfc8785_fingerprint(const std::string& body) {
  return request_fingerprint(std::get<CanonicalJson>(parse_canonical_json(body)).text);
}

std::string dump_fingerprint(const std::string& body) {
  return sha256_hex(std::get<CanonicalJson>(parse_canonical_json(body)).value.dump());
}

}  // namespace

TEST_CASE("nlohmann's dump() tells 1500 from 1.5e3; the RFC 8785 form does not", "[fingerprint]") {
  const std::string first = R"({"from_account":7,"to_account":8,"amount":1500,"currency":"USD"})";
  const std::string retry = R"({"from_account":7.0,"to_account":8,"amount":1.5e3,"currency":"USD"})";
  CHECK(rfc8785_fingerprint(first) == rfc8785_fingerprint(retry));
  CHECK(dump_fingerprint(first) != dump_fingerprint(retry));
  // Why: dump() writes the float it parsed as a float.
  CHECK(std::get<CanonicalJson>(parse_canonical_json(retry)).value.dump() ==
        R"({"amount":1500.0,"currency":"USD","from_account":7.0,"to_account":8})");
}

TEST_CASE("nlohmann's dump() tells 3 from 3.0 inside metadata too", "[fingerprint]") {
  const std::string first = R"({"metadata":{"items":3}})";
  const std::string retry = R"({"metadata":{"items":3.0}})";
  CHECK(rfc8785_fingerprint(first) == rfc8785_fingerprint(retry));
  CHECK(dump_fingerprint(first) != dump_fingerprint(retry));
}

TEST_CASE("nlohmann's dump() orders keys by code point, RFC 8785 by UTF-16 code unit", "[fingerprint]") {
  // U+FB01 (one UTF-16 unit, FB01) and U+1F600 (two, D83D DE00). dump() is consistent with itself here, so it
  // does not split one request in two; but its bytes are not RFC 8785's, and a server that must agree with
  // another implementation's fingerprint (a second language, a replica) would disagree on these keys.
  const std::string body = "{\"\xef\xac\x81\":1,\"\xf0\x9f\x98\x80\":2}";
  const auto parsed = std::get<CanonicalJson>(parse_canonical_json(body));
  CHECK(parsed.text == "{\"\xf0\x9f\x98\x80\":2,\"\xef\xac\x81\":1}");
  CHECK(parsed.value.dump() == "{\"\xef\xac\x81\":1,\"\xf0\x9f\x98\x80\":2}");
}

TEST_CASE("what dump() gets right: escapes, member order and 0.1 spelled 1e-1", "[fingerprint]") {
  // Parsing already unescapes strings and reads 0.1, 1e-1 and 1E-1 as one double, so these spellings do not
  // tell the two approaches apart; only the raw bytes (wrong turn 3a) do.
  const std::string first = R"({"memo":"café","metadata":{"rate":0.1,"b":1}})";
  const std::string retry = R"({"metadata":{"b":1,"rate":1E-1},"memo":"caf\u00e9"})";
  CHECK(rfc8785_fingerprint(first) == rfc8785_fingerprint(retry));
  CHECK(dump_fingerprint(first) == dump_fingerprint(retry));
  CHECK(sha256_hex(first) != sha256_hex(retry));
}
