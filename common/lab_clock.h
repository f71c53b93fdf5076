// lab_clock.h: the lab's clock. LAB.md "Plumbing: the lab clock".
//
// now_ms() is real time (Unix milliseconds) plus an offset that POST /admin/clock moves forward, so the
// grader can let a lease or a key's TTL run out without waiting. The offset is stored in the database,
// so it survives a crash and restart on the same file. Everything time-based reads this clock:
// created_at, leases, key TTL and the sweeper. (Retry-After is a fixed polling hint, not a time on this clock.)
//
// Thread safety: all members are safe to call from any thread (offset_ms_ is atomic; advance() writes
// through the database's write transaction).
#pragma once

#include <atomic>
#include <cstdint>

#include "common/db.h"

namespace lab {

class LabClock {
 public:
  explicit LabClock(Database& db);   // creates the lab_clock table if needed and loads the offset
  std::int64_t now_ms() const;
  std::int64_t advance(std::int64_t ms);   // returns the new now_ms(); ms must be >= 0 (time never runs back)
  std::int64_t offset_ms() const { return offset_ms_.load(); }

 private:
  Database& db_;
  std::atomic<std::int64_t> offset_ms_{0};
};

}  // namespace lab
