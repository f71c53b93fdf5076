// idempotency_key_fuzz.cc: libFuzzer target for the Idempotency-Key parser (common/idempotency_key.h).
// docs/reference/http-contract.md "The Idempotency-Key header"; run by `make fuzz`.
//
// Input: header lines separated by '\n' (so two lines are two Idempotency-Key headers). Beyond "no crash":
//   - it never throws: the only error it gives is a Problem, a 400 of an idempotency-key-* type;
//   - an accepted key holds 1 to kMaxKeyLength printable ASCII characters (0x20-0x7E);
//   - an accepted key round-trips: written as an sf-string ("...", with \" and \\) it reads back as itself,
//     and so does its bare form when the bare form may hold it (no space, '"', ',', ';' or '\').
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/idempotency_key.h"
#include "fuzz/fuzz_require.h"

using lab::fuzz::require;

namespace {

std::string as_sf_string(const std::string& key) {
  std::string quoted = "\"";
  for (char c : key) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

bool reads_back_as(const std::string& line, const std::string& key) {
  auto again = lab::parse_idempotency_key({line});
  return std::holds_alternative<std::string>(again) && std::get<std::string>(again) == key;
}

bool is_idempotency_key_problem(lab::ProblemType type) {
  using enum lab::ProblemType;
  return type == IdempotencyKeyMissing || type == IdempotencyKeyEmpty || type == IdempotencyKeyList ||
         type == IdempotencyKeyParameters || type == IdempotencyKeyRepeatedHeader ||
         type == IdempotencyKeyTooLong || type == IdempotencyKeyMalformed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= input.size();) {
    std::size_t end = std::min(input.find('\n', start), input.size());
    lines.push_back(input.substr(start, end - start));
    start = end + 1;
  }

  auto result = lab::parse_idempotency_key(lines);
  if (auto* problem = std::get_if<lab::Problem>(&result)) {
    require(problem->status() == 400 && is_idempotency_key_problem(problem->type),
            "a refused key is a 400 of an idempotency-key-* type");
    return 0;
  }
  const auto& key = std::get<std::string>(result);
  require(!key.empty() && key.size() <= lab::kMaxKeyLength, "an accepted key holds 1 to 255 characters");
  for (char c : key) require(c >= 0x20 && c <= 0x7E, "an accepted key is printable ASCII");
  require(reads_back_as(as_sf_string(key), key), "an accepted key, quoted as an sf-string, reads back as itself");
  if (key.find_first_of(" \",;\\") == std::string::npos)
    require(reads_back_as(key, key), "an accepted key, sent bare, reads back as itself");
  return 0;
}
