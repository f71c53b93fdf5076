// canonical_json_fuzz.cc: libFuzzer target for the RFC 8785 canonicalizer (common/canonical_json.h) and the
// fingerprint (common/fingerprint.h). docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint"; run by `make fuzz`.
//
// Input: any bytes, as a request body. Beyond "no crash, no exception" (parse_canonical_json never throws):
//   - the canonical form is a fixed point: canonical(canonical(x)) == canonical(x). Otherwise a body and
//     the stored canonical form of that body could get two fingerprints, and a retry would be told 422;
//   - canonicalize(the parsed value) writes the very bytes the parse returned;
//   - the fingerprint of x equals the fingerprint of canonical(x): 64 lowercase hex digits, stable.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/canonical_json.h"
#include "common/fingerprint.h"
#include "fuzz/fuzz_require.h"

using lab::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto first = lab::parse_canonical_json(std::string_view(reinterpret_cast<const char*>(data), size));
  auto* canonical = std::get_if<lab::CanonicalJson>(&first);
  if (canonical == nullptr) return 0;   // refused with a JsonError: a 400, which is all it must be

  auto second = lab::parse_canonical_json(canonical->text);
  auto* again = std::get_if<lab::CanonicalJson>(&second);
  require(again != nullptr, "the canonical form of an accepted body is accepted");
  require(again->text == canonical->text, "canonical(canonical(x)) == canonical(x)");
  require(lab::canonicalize(canonical->value) == canonical->text, "canonicalize(parsed value) == parsed text");

  const auto fingerprint = lab::request_fingerprint(canonical->text);
  require(fingerprint.size() == 64 && fingerprint.find_first_not_of("0123456789abcdef") == std::string::npos,
          "a fingerprint is 64 lowercase hex digits");
  require(lab::request_fingerprint(again->text) == fingerprint, "the fingerprint of canonical(x) is stable");
  return 0;
}
