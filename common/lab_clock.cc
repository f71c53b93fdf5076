// lab_clock.cc: see lab_clock.h.
#include "common/lab_clock.h"

#include <chrono>
#include <stdexcept>

namespace lab {

// Schema: lab_clock(id = 1, offset_ms): one row, the offset added to real time.
LabClock::LabClock(Database& db) : db_(db) {
  db_.exec_script(
      "CREATE TABLE IF NOT EXISTS lab_clock (id INTEGER PRIMARY KEY CHECK (id = 1), offset_ms INTEGER NOT NULL);"
      "INSERT INTO lab_clock (id, offset_ms) SELECT 1, 0 WHERE NOT EXISTS (SELECT 1 FROM lab_clock);");
  auto row = db_.conn().prepare("SELECT offset_ms FROM lab_clock WHERE id = 1");
  if (row.step()) offset_ms_ = row.column_int64(0);
}

std::int64_t LabClock::now_ms() const {
  auto real = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  return real.count() + current_offset_ms();
}

std::int64_t LabClock::current_offset_ms() const {
  // Several instances on one PostgreSQL database share one clock: another one may have moved it since.
  if (db_.shared_by_processes()) {
    auto row = db_.conn().prepare("SELECT offset_ms FROM lab_clock WHERE id = 1");
    if (row.step()) offset_ms_ = row.column_int64(0);
  }
  return offset_ms_.load();
}

std::optional<std::int64_t> LabClock::advance(std::int64_t ms) {
  if (ms < 0) throw std::invalid_argument("the lab clock only moves forward");
  {
    // WithNextCommit, then wait_until_durable below: at --sync full a durable commit() releases the write lock
    // before it returns (group_commit.h), and the offset must be stored while the lock is held.
    auto tx = db_.begin_write(Durability::WithNextCommit);
    std::int64_t offset = 0;
    {
      // The bound is tested as offset_ms <= max - ms, not offset_ms + ms <= max: both sides are differences
      // of non-negative numbers, so the test itself cannot overflow (SQLite would turn an overflowing sum
      // into a floating-point number, and the offset would silently lose its exactness).
      auto row = tx.conn().prepare(
          "UPDATE lab_clock SET offset_ms = offset_ms + ?1 WHERE id = 1 AND offset_ms <= ?2 - ?1 RETURNING offset_ms");
      row.bind(1, ms).bind(2, kMaxOffsetMs);
      if (!row.step()) return std::nullopt;   // past the bound: nothing changed, the transaction rolls back
      offset = row.column_int64(0);
      row.run();  // finish the statement before COMMIT
    }
    tx.commit();
    offset_ms_ = offset;   // still under the write lock (tx ends below), so two advances store in commit order
  }
  db_.wait_until_durable();
  return now_ms();
}

}  // namespace lab
