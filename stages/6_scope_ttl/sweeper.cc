// sweeper.cc: see sweeper.h.
#include "sweeper.h"

#include <condition_variable>
#include <cstdio>
#include <mutex>

void run_sweeper(std::stop_token stop, KeyTable keys, const lab::LabClock& clock) {
  std::mutex mutex;   // only for the wait below: the sweeper shares no memory with the handlers
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
