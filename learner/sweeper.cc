// sweeper.cc: see sweeper.h.
#include "sweeper.h"

#include <condition_variable>
#include <cstdio>
#include <mutex>

void run_sweeper(std::stop_token stop, KeyTable keys, const lab::LabClock& clock) {
  // An interruptible sleep. wait_for() with the stop token returns as soon as the server asks the sweeper
  // to stop, instead of sleeping out the interval; nobody ever notifies `wake` and the predicate is always
  // false, so only the stop or the interval ends a wait. The mutex is there because a condition variable
  // needs one: the sweeper shares no memory with the handlers, only the database.
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  while (!stop.stop_requested()) {
    try {
      while (keys.delete_expired(clock.now_ms(), kSweepBatch) == kSweepBatch && !stop.stop_requested()) {
      }
    } catch (const lab::DatabaseError& e) {
      std::fprintf(stderr, "sweeper: %s (will retry)\n", e.what());   // busy: the next sweep tries again
    }
    wake.wait_for(lock, stop, kSweepInterval, [] { return false; });
  }
}
