// fingerprint.h: SHA-256 fingerprints of request bodies, to compare a retried request with the
// first one seen under the same Idempotency-Key.
//
// Interface:
//   sha256_hex(bytes)                       lowercase hex SHA-256 (OpenSSL EVP) of any bytes.
//   request_fingerprint(canonical_body)     the fingerprint stages store and compare.
//
// Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
#pragma once

#include <string>
#include <string_view>

namespace lab {

// Lowercase hexadecimal SHA-256 of the bytes, 64 characters. Throws std::runtime_error only if
// OpenSSL itself fails.
std::string sha256_hex(std::string_view bytes);

// The fingerprint of a request: sha256_hex of its RFC 8785 canonical body (the `text` of
// parse_canonical_json). Documented decision: the whole body is the fingerprint's input, not a
// chosen subset of fields, so any change to what the client asked for is a different request.
std::string request_fingerprint(std::string_view canonical_body);

}  // namespace lab
