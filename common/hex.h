// hex.h: bytes as lowercase hexadecimal, two digits a byte ("\x9f\x2c" -> "9f2c").
//
//   std::string hex = lowercase_hex(digest);   // any contiguous bytes: std::array, std::vector, one byte
//
// The one hex encoder of the plumbing: SHA-256 fingerprints (fingerprint.cc), random tokens (token.cc) and
// RFC 8785's \u00XX escapes (canonical_json.cc) all print bytes this way. Lowercase because RFC 8785
// section 3.2.2.2 requires it for the escapes, and one case everywhere keeps stored hashes comparable as text.
#pragma once

#include <span>
#include <string>

namespace lab {

// 2 * bytes.size() characters from "0123456789abcdef", the high nibble of each byte first.
std::string lowercase_hex(std::span<const unsigned char> bytes);

}  // namespace lab
