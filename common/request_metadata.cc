// request_metadata.cc: see request_metadata.h.
#include "common/request_metadata.h"

#include <algorithm>

#include "common/canonical_json.h"

namespace lab {
namespace {

using nlohmann::json;

// Levels of objects and arrays in a value: 0 for a scalar, 1 for {} or [1], 2 for {"a":[1]}.
std::size_t nesting_depth(const json& value) {
  if (!value.is_structured()) return 0;
  std::size_t deepest_child = 0;
  for (const json& child : value) deepest_child = std::max(deepest_child, nesting_depth(child));
  return 1 + deepest_child;
}

// A key as a JSON string, so that a key of spaces or control characters is visible in the reason.
std::string quoted(const std::string& key) { return json(key).dump(); }

}  // namespace

std::size_t code_points(const std::string& utf8) {
  constexpr unsigned char kContinuationMask = 0xC0;   // 10xxxxxx: a byte inside a sequence
  constexpr unsigned char kContinuationBits = 0x80;
  return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & kContinuationMask) != kContinuationBits;
  }));
}

std::vector<std::string> metadata_faults(const json& metadata) {
  if (!metadata.is_object()) return {"must be a JSON object of string keys"};
  std::vector<std::string> faults;
  if (metadata.size() > kMaxMetadataKeys)
    faults.push_back("has " + std::to_string(metadata.size()) + " keys, at most " +
                     std::to_string(kMaxMetadataKeys) + " are allowed");
  for (const auto& [key, value] : metadata.items()) {
    const std::size_t length = code_points(key);
    if (length == 0) faults.push_back("keys must not be empty");
    if (length > kMaxMetadataKeyCodePoints)
      faults.push_back("key " + quoted(key) + " has " + std::to_string(length) + " characters, at most " +
                       std::to_string(kMaxMetadataKeyCodePoints) + " are allowed");
    // The metadata object is level 1, so the value may add kMaxMetadataDepth - 1 levels.
    if (nesting_depth(value) + 1 > kMaxMetadataDepth)
      faults.push_back("the value of key " + quoted(key) + " nests objects and arrays deeper than " +
                       std::to_string(kMaxMetadataDepth) + " levels (counting metadata itself)");
  }
  const std::size_t bytes = canonicalize(metadata).size();
  if (bytes > kMaxMetadataBytes)
    faults.push_back("is " + std::to_string(bytes) + " bytes in canonical form (RFC 8785), at most " +
                     std::to_string(kMaxMetadataBytes) + " are allowed");
  return faults;
}

}  // namespace lab
