// rng.cc: see rng.h.
#include "grader/base/rng.h"

#include <random>

namespace grader {

std::uint64_t fresh_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32 | device()) % 1'000'000'000;
}

}  // namespace grader
