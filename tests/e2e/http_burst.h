// http_burst.h: N requests released at the same instant, for the races the lab is about.
//
//   auto replies = burst(16, [&](int i) { return alice.transfer(from, to, 100, "same-key"); });
// Each request runs on its own thread; all threads wait at one std::barrier and are released together,
// so the server sees them as simultaneous as one process can make them.
#pragma once

#include <functional>
#include <vector>

#include "tests/e2e/stage_process.h"

namespace lab::testing {

std::vector<Reply> burst(int count, const std::function<Reply(int index)>& request);

}  // namespace lab::testing
