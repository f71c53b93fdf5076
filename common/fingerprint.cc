// fingerprint.cc: SHA-256 through OpenSSL's EVP interface, printed as lowercase hex.
//
// Interface (see fingerprint.h): sha256_hex, request_fingerprint.
// Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
#include "common/fingerprint.h"

#include <array>
#include <stdexcept>

#include <openssl/evp.h>

#include "common/hex.h"

namespace lab {

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_length = 0;
  // EVP rather than the deprecated SHA256() call: the interface OpenSSL 3 keeps supporting.
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &digest_length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL EVP_Digest(SHA-256) failed");
  }
  return lowercase_hex(std::span(digest.data(), digest_length));
}

std::string request_fingerprint(std::string_view canonical_body) {
  // Whole body in, on purpose: see fingerprint.h and docs/reference/fingerprint.md.
  return sha256_hex(canonical_body);
}

}  // namespace lab
