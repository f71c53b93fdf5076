// key_table.cc: stage 4's key table. See key_table.h. LAB.md "Stage 4: in_progress, then completed".
//
// Schema:
//   idempotency_keys(key UNIQUE, fingerprint, state 'in_progress'|'completed', fence, locked_until,
//                    status, entry_id, problem_type, problem_detail, created_at)
//
// A key's life:
//
//        claim()                       holds() + complete(), in the money's transaction
//   (none) ------> in_progress -----------------------------------------------> completed
//     ^              |     ^  \                                                  (final: the outcome
//     |   release()  |     |   \ take_over(): locked_until passed, fence + 1       is kept for repeats)
//     +--------------+     +---+
//
//   state        guarantees
//   in_progress  one request holds the key (the one whose Claim.fence equals fence); no money has moved
//                under it, because money and `completed` commit in one transaction.
//   completed    the outcome is final: the money moved exactly once (201) or not at all (402, 404, 400);
//                status, entry_id / problem_type describe it.
//
// The fence: a claim whose lease ran out is taken over with a conditional UPDATE that bumps the fence.
// The first holder, if it was merely slow, then finds the fence changed when it tries to complete, and
// rolls its transaction back: the money cannot move twice.
#include "key_table.h"

#include <stdexcept>

using namespace lab;

KeyTable::KeyTable(Database& db) : db_(db) {
  db_.exec_script(R"sql(
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      key            TEXT    NOT NULL UNIQUE,
      fingerprint    TEXT    NOT NULL,
      state          TEXT    NOT NULL CHECK (state IN ('in_progress', 'completed')),
      fence          INTEGER NOT NULL,
      locked_until   INTEGER NOT NULL,
      status         INTEGER,
      entry_id       INTEGER REFERENCES ledger(id),
      problem_type   TEXT,
      problem_detail TEXT,
      created_at     INTEGER NOT NULL
    );
  )sql");
}

Claim KeyTable::claim(const std::string& key, const std::string& fingerprint, std::int64_t now_ms,
                      std::int64_t lease_ms) const {
  // Committed at once: from here on every repeat sees the key in_progress.
  auto tx = db_.begin_write();
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, fingerprint, state, fence, locked_until, created_at) "
               "VALUES (?1, ?2, 'in_progress', 1, ?3, ?4)")
      .bind(1, key)
      .bind(2, fingerprint)
      .bind(3, now_ms + lease_ms)
      .bind(4, now_ms)
      .run();
  tx.commit();
  return Claim{key, 1};
}

std::optional<KeyRow> KeyTable::find(const std::string& key) const {
  auto row = db_.conn().prepare(
      "SELECT key, fingerprint, state, fence, locked_until, status, entry_id, problem_type, problem_detail "
      "FROM idempotency_keys WHERE key = ?1");
  if (!row.bind(1, key).step()) return std::nullopt;
  KeyRow r;
  r.key = row.column_text(0);
  r.fingerprint = row.column_text(1);
  r.state = row.column_text(2);
  r.fence = row.column_int64(3);
  r.locked_until = row.column_int64(4);
  r.status = static_cast<int>(row.column_int64(5));
  if (!row.column_is_null(6)) r.entry_id = row.column_int64(6);
  r.problem_type = row.column_text(7);
  r.problem_detail = row.column_text(8);
  return r;
}

std::optional<Claim> KeyTable::take_over(const KeyRow& expired, std::int64_t now_ms, std::int64_t lease_ms) const {
  // Conditional: only if nobody else completed it or took it over since we read it.
  auto tx = db_.begin_write();
  tx.conn()
      .prepare("UPDATE idempotency_keys SET fence = fence + 1, locked_until = ?1 "
               "WHERE key = ?2 AND fence = ?3 AND state = 'in_progress' AND locked_until <= ?4")
      .bind(1, now_ms + lease_ms)
      .bind(2, expired.key)
      .bind(3, expired.fence)
      .bind(4, now_ms)
      .run();
  bool taken = tx.conn().changes() == 1;
  tx.commit();
  if (!taken) return std::nullopt;
  return Claim{expired.key, expired.fence + 1};
}

bool KeyTable::holds(Connection& tx, const Claim& claim) const {
  auto row = tx.prepare("SELECT fence, state FROM idempotency_keys WHERE key = ?1");
  return row.bind(1, claim.key).step() && row.column_int64(0) == claim.fence && row.column_text(1) == kInProgress;
}

void KeyTable::complete(Connection& tx, const Claim& claim, const MoneyOutcome& outcome) const {
  auto update = tx.prepare(
      "UPDATE idempotency_keys SET state = 'completed', status = ?1, entry_id = ?2, problem_type = ?3, "
      "problem_detail = ?4 WHERE key = ?5 AND fence = ?6 AND state = 'in_progress'");
  if (auto* entry = std::get_if<LedgerEntry>(&outcome)) {
    update.bind(1, 201).bind(2, entry->id).bind(3, nullptr).bind(4, nullptr);
  } else {
    const auto& problem = std::get<Problem>(outcome);
    update.bind(1, problem.status()).bind(2, nullptr).bind(3, problem.slug()).bind(4, problem.detail);
  }
  update.bind(5, claim.key).bind(6, claim.fence).run();
  // Invariant: the caller checked holds() in this same transaction, so exactly one row changed.
  if (tx.changes() != 1) throw std::logic_error("completed a key whose claim was not held");
}

void KeyTable::release(const Claim& claim) const {
  // The request failed for a reason that is not its own (503): forget the claim so a retry may run.
  auto tx = db_.begin_write();
  tx.conn()
      .prepare("DELETE FROM idempotency_keys WHERE key = ?1 AND fence = ?2 AND state = 'in_progress'")
      .bind(1, claim.key)
      .bind(2, claim.fence)
      .run();
  tx.commit();
}
