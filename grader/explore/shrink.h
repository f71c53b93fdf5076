// shrink.h: the shortest history that still fails (issue 51). docs/teach/grader-checks-itself.md
// "Explore: random histories judged by the model".
//
//   History shortest = shrink(failing, [&](const History& h) { return run(h).refused; });
//
// Delta debugging (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input", 2002): try
// the history without each of n chunks, n = 2, 4, ... up to single steps, keeping any shorter one that still
// fails; then each remaining step made simpler (simplifications) while it still fails. Pure: all it knows
// of the server is the predicate, which it calls at most `max_tries` times (each call may start a server).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "grader/explore/history.h"

namespace grader::explore {

// Each call runs a history from scratch; true when it fails the way the original did.
using StillFails = std::function<bool(const History&)>;

inline constexpr int kMaxShrinkTries = 200;

struct Shrunk {
  History history;
  int tries = 0;  // predicate calls made
};

Shrunk shrink(const History& failing, const StillFails& still_fails, int max_tries = kMaxShrinkTries);

// The simpler versions of a step, simplest first: a plain spelling, no delay, no takeover, a plain send
// instead of a crash or a busy fault, a smaller amount.
std::vector<Step> simplifications(const Step& step);

}  // namespace grader::explore
