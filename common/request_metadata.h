// request_metadata.h: the optional `metadata` object of POST /transfers and POST /payouts, checked.
// docs/reference/http-contract.md "The HTTP contract" (body rules) and "Stage 3: the canonical fingerprint".
//
//   if (auto metadata = document.find("metadata"); metadata != document.end()) {   // parse_canonical_json's value
//     for (const auto& reason : metadata_faults(*metadata)) errors.add("metadata", reason);   // FieldErrors
//     request.metadata = canonicalize(*metadata);   // the form stored and echoed
//   }
//
// Metadata is the client's own notes on a money movement (an order number, a customer reference), as Stripe
// allows on most objects: string keys, any JSON values. The bank never reads it; it belongs to the request,
// so it is part of the body's canonical form and therefore of the fingerprint (a changed value under the
// same Idempotency-Key is another request: 422 from stage 3 on), and it is stored with the ledger entry and
// echoed. It is also where the lab's bodies carry JSON that a sort_keys fingerprint gets wrong: floats such
// as 0.1, numbers such as 1e21, keys outside the Basic Multilingual Plane.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lab {

// Stripe allows 50 keys; a money movement needs a few references, not a customer record, and 20 keys of
// short values stay well inside the 2 KiB below.
inline constexpr std::size_t kMaxMetadataKeys = 20;
// Stripe's limit on a key's length. Counted in Unicode code points, not bytes, so "€" and "e" both count
// one and a non-Latin key is not given a quarter of the room a Latin one gets.
inline constexpr std::size_t kMaxMetadataKeyCodePoints = 40;
// The metadata object itself is level 1, so values may hold objects or arrays two levels deep: a list of
// line items, each a small object. Enough for references; deeper trees belong in the client's own store.
inline constexpr std::size_t kMaxMetadataDepth = 3;
// Bytes of the metadata's RFC 8785 canonical form, the form that is stored. Measured on that form, not on
// the body as sent, so that two spellings of one value (1e21 and 1000000000000000000000, "\u00e9" and "é")
// are both accepted or both refused: the limit is a property of the value, like the fingerprint. 2 KiB is
// four of Stripe's 500-character values; it keeps a ledger row and a stored response small.
inline constexpr std::size_t kMaxMetadataBytes = 2 * 1024;

// Why this value is not acceptable metadata, one sentence per fault, all of them; empty when it is.
// Expects a value from parse_canonical_json (strings are valid UTF-8).
std::vector<std::string> metadata_faults(const nlohmann::json& metadata);

// Unicode code points in a valid UTF-8 string: the bytes that do not continue a sequence.
std::size_t code_points(const std::string& utf8);

}  // namespace lab
