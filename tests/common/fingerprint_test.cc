// fingerprint_test.cc: unit tests of common/fingerprint.h, the SHA-256 request fingerprint.
//
// Interface: Catch2 v2 test cases (main() is in tests/catch_main.cc), tag [fingerprint].
// Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
#include <string>
#include <string_view>
#include <variant>

#include <catch2/catch.hpp>

#include "common/canonical_json.h"
#include "common/fingerprint.h"

namespace {

// The fingerprint a stage computes for a request body: hash of the canonical bytes.
std::string fingerprint_of_body(std::string_view body) {
  const auto parsed = lab::parse_canonical_json(body);
  REQUIRE(std::holds_alternative<lab::CanonicalJson>(parsed));
  return lab::request_fingerprint(std::get<lab::CanonicalJson>(parsed).text);
}

}  // namespace

TEST_CASE("fingerprint sha256_hex matches the FIPS 180-2 vectors for \"\" and \"abc\"", "[fingerprint]") {
  CHECK(lab::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(lab::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(lab::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("fingerprint sha256_hex hashes every byte, NUL and non-ASCII included", "[fingerprint]") {
  CHECK(lab::sha256_hex(std::string_view("a\0b", 3)) != lab::sha256_hex("ab"));
  CHECK(lab::sha256_hex("\xC3\xA9").size() == 64);
}

TEST_CASE("fingerprint of the canonical body is the same for reordered and re-spaced bodies",
          "[fingerprint][canonical_json]") {
  const std::string first = fingerprint_of_body(R"({"to":"DE89370400440532013000","amount":1250,"currency":"EUR"})");
  CHECK(first == fingerprint_of_body(R"({
    "currency": "EUR",
    "amount": 1250.0,
    "to": "DE89370400440532013000"
  })"));
  CHECK(first == fingerprint_of_body(R"({"currency":"\u0045UR","to":"DE89370400440532013000","amount":1.25e3})"));
  CHECK(first == lab::request_fingerprint(R"({"amount":1250,"currency":"EUR","to":"DE89370400440532013000"})"));
}

TEST_CASE("fingerprint of the canonical body changes when the amount changes", "[fingerprint][canonical_json]") {
  const std::string original = fingerprint_of_body(R"({"to":"DE89370400440532013000","amount":1250,"currency":"EUR"})");
  CHECK(original != fingerprint_of_body(R"({"to":"DE89370400440532013000","amount":1251,"currency":"EUR"})"));
  CHECK(original != fingerprint_of_body(R"({"to":"DE89370400440532013000","amount":"1250","currency":"EUR"})"));
  // The whole body is the input: an extra field is a different request too.
  CHECK(original != fingerprint_of_body(R"({"to":"DE89370400440532013000","amount":1250,"currency":"EUR","memo":""})"));
}

TEST_CASE("fingerprint is sha256_hex of the canonical body and nothing else", "[fingerprint]") {
  const std::string canonical = R"({"amount":1250,"currency":"EUR"})";
  CHECK(lab::request_fingerprint(canonical) == lab::sha256_hex(canonical));
  CHECK(lab::request_fingerprint(canonical).size() == 64);
}
