// fuzz_require.h: the one check the fuzz targets make, kept on in every build type.
//
//   require(again.text == first.text, "canonical(canonical(x)) == canonical(x)");
//
// assert() is compiled out under NDEBUG (RelWithDebInfo, the lab's default), and a property that is not
// checked is not fuzzed. abort() is what libFuzzer records as a crash: it saves the input as crash-<sha1>,
// which then becomes a regression test (docs/reference/plumbing.md "Reliability", Fuzzing).
#pragma once

#include <cstdio>
#include <cstdlib>

namespace lab::fuzz {

inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "fuzz: property violated: %s\n", property);
  std::abort();
}

}  // namespace lab::fuzz
