// day_generate.h: `grader day generate`: a deterministic day of requests. docs/teach/the-day.md "The day".
//
//   DayLog day = generate_day({.seed = 1, .intents = 20'000});
//   write_day_log(std::cout, day);
//
// The same seed gives the same day on every machine (grader/base/rng.h). Each intent follows one story of the
// day (kStories in day_generate.cc): most are plain, the rest are the ways a client ends up sending again.
#pragma once

#include <cstdint>

#include "grader/day/day_log.h"

namespace grader {

struct DayShape {
  std::uint64_t seed = 1;
  std::int64_t intents = 20'000;
};

DayLog generate_day(const DayShape& shape);

}  // namespace grader
