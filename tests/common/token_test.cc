// token_test.cc: a random token is its prefix and hex of fresh random bytes.
#include "common/token.h"

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("random_token is the prefix and two lowercase hex digits per random byte", "[token]") {
  const std::string token = lab::random_token("tok_", 32);
  CHECK(token.size() == 4 + 64);
  CHECK(token.rfind("tok_", 0) == 0);
  CHECK(token.find_first_not_of("0123456789abcdef", 4) == std::string::npos);
}

TEST_CASE("random_token never gives the same token twice", "[token]") {
  CHECK(lab::random_token("adm_", 16) != lab::random_token("adm_", 16));
}
