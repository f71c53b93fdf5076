// lab_clock.h: the lab's clock. docs/reference/plumbing.md "The lab clock".
//
// now_ms() is real time (Unix milliseconds) plus an offset that POST /admin/clock moves forward, so the
// grader can let a lease or a key's TTL run out without waiting. The offset is stored in the database,
// so it survives a crash and restart on the same file, and several instances on one PostgreSQL database
// share it. Everything time-based reads this clock:
// created_at, leases, key TTL and the sweeper. (Retry-After is a fixed polling hint, not a time on this clock.)
//
// Thread safety: all members are safe to call from any thread (offset_ms_ is atomic; advance() writes
// through the database's write transaction).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

#include "common/canonical_json.h"
#include "common/db.h"

namespace lab {

class LabClock {
 public:
  // The longest step of one POST /admin/clock, in milliseconds: 2^53 - 1, the largest integer every JSON
  // client reads exactly (openapi.yaml's maximum for advance_ms); about 285,000 years, past any lease or TTL.
  static constexpr std::int64_t kMaxAdvanceMs = kMaxExactJsonInteger;
  // How far ahead of real time all steps together may put the clock, in milliseconds: 2^62 (146 million
  // years). It keeps now_ms() (real time, about 2^41 today, plus the offset) and a lease or TTL added to it
  // far below int64's 2^63 - 1, so no sum of steps can overflow, in SQLite or in C++.
  static constexpr std::int64_t kMaxOffsetMs = std::int64_t{1} << 62;

  explicit LabClock(Database& db);   // creates the lab_clock table if needed and loads the offset
  std::int64_t now_ms() const;       // Unix milliseconds: real time plus the offset
  // Moves the clock ms milliseconds forward and returns the new now_ms(). ms must be >= 0 (time never runs
  // back: std::invalid_argument). Returns nothing, and moves nothing, if the offset would pass kMaxOffsetMs.
  std::optional<std::int64_t> advance(std::int64_t ms);
  std::int64_t offset_ms() const { return current_offset_ms(); }

 private:
  // The stored offset. Read once and kept when one process owns the database (SQLite); read every time when
  // several may share it (PostgreSQL: POST /admin/clock on any instance moves every instance's clock).
  std::int64_t current_offset_ms() const;
  Database& db_;
  mutable std::atomic<std::int64_t> offset_ms_{0};
};

}  // namespace lab
