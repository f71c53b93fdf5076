// rng.h: the seeded source of every random input (clients, balances, amounts, keys, fault moments).
// docs/teach/grader.md "The grader": `--seed S` repeats a run's inputs and fault schedule exactly.
//
//   Rng rng = Rng::for_check(seed, "stage2.simultaneous-16");   // the same inputs with or without --check
//   auto amount = rng.between(100, 5'000);
//
// SplitMix64 (Steele, Lea, Flood 2014) with our own range reduction: std:: distributions differ between
// standard libraries, and a seed must mean the same inputs on every machine.
// Thread safety: none; one Rng per check.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace grader {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  // Each check draws from its own stream, so running one check alone (--check) draws what it drew in a
  // full run.
  static Rng for_check(std::uint64_t seed, std::string_view check_name) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a of the name, mixed into the seed
    for (char c : check_name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return Rng(seed ^ h);
  }

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [lo, hi], lo <= hi. The modulo bias is below 2^-40 for the lab's ranges: fine for inputs.
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }

  std::string hex(std::size_t chars) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    while (out.size() < chars) out += kHex[next() & 0xf];
    return out;
  }

 private:
  std::uint64_t state_;
};

// A seed for a run given none (--seed absent): from the system's random device, printed by the caller so
// that the run can be repeated. Short enough to type.
std::uint64_t fresh_seed();

}  // namespace grader
