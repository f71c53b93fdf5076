// in_flight.cc: see in_flight.h.
#include "grader/record/in_flight.h"

namespace grader {

void InFlight::watch(std::int64_t op, Connection connection) {
  auto w = std::make_unique<Watch>();
  w->op = op;
  Watch* mine = w.get();  // stable: the Watch lives on the heap until wait_all has joined its thread
  w->reader = std::jthread([this, mine, connection = std::move(connection)]() mutable {
    Exchange seen;
    bool timed_out = false;
    seen.response = connection.read_response(kWatchPatience, &seen.error, &timed_out);
    seen.done_ns = monotonic_ns();
    // An answer, a close or a reset all say the server is done with it; only the patience running out
    // does not.
    mine->ended = !timed_out;
    history_.ended(mine->op, seen);
  });
  std::lock_guard lock(mutex_);
  watches_.push_back(std::move(w));
}

std::vector<std::string> InFlight::wait_all() {
  std::vector<std::unique_ptr<Watch>> finished;
  {
    std::lock_guard lock(mutex_);
    finished.swap(watches_);
  }
  std::vector<std::string> late;
  for (auto& w : finished) {
    w->reader.join();
    if (!w->ended)
      late.push_back("op " + std::to_string(w->op) + ": the server had not ended this request " +
                     std::to_string(kWatchPatience.count()) +
                     " ms after the client gave up on it; the audit read the ledger without knowing whether it "
                     "still runs");
  }
  return late;
}

}  // namespace grader
