// hex_test.cc: the one hex encoder writes two lowercase digits a byte, high nibble first.
#include "common/hex.h"

#include <catch2/catch.hpp>

#include <array>
#include <vector>

TEST_CASE("lowercase_hex writes each byte as two lowercase digits, high nibble first", "[hex]") {
  const std::array<unsigned char, 4> bytes = {0x00, 0x0f, 0xa0, 0xff};
  CHECK(lab::lowercase_hex(bytes) == "000fa0ff");
  const unsigned char one = 0x1f;
  CHECK(lab::lowercase_hex(std::span(&one, 1)) == "1f");   // the \u001f of an RFC 8785 escape
  CHECK(lab::lowercase_hex(std::vector<unsigned char>{}).empty());
}
