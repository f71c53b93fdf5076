// key_table.cc: see key_table.h.
//
// Schema:
//   idempotency_keys(id, key UNIQUE, created_at, fingerprint, state 'in_progress'|'completed', fence,
//                    locked_until, response_status, response_content_type, response_body)
// The stored response (set when completed): response_status (the HTTP status), response_content_type (the
// Content-Type header: the only header a repeat needs) and response_body (a BLOB: the exact bytes sent).
//
// The UNIQUE constraint is the arbiter: of two requests with one key, exactly one INSERT succeeds, however
// close together they arrive, in this process or another one on the same file. No SELECT first: between a
// SELECT that finds nothing and the INSERT, the other request would find nothing too (see the wrong turn
// stages/wrong_turns/2a_select_then_insert). No INSERT OR IGNORE: it hides the one fact we need
// (see stages/wrong_turns/2b_insert_or_ignore).
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
//   in_progress  one request holds the key (the one whose Claim names this row's id and fence); no money
//                has moved under it, because money and `completed` commit in one transaction.
//   completed    the outcome is final: the money moved exactly once (201) or not at all (402, 404, 400);
//                the response first sent is stored, and every repeat gets exactly those bytes.
//
// The fence: a claim whose lease ran out is taken over with a conditional UPDATE that bumps the fence.
// The first holder, if it was merely slow, then finds the fence changed when it tries to complete, and
// rolls its transaction back: the money cannot move twice.
#include "key_table.h"

#include <cstdio>
#include <stdexcept>

using namespace lab;

KeyTable::KeyTable(Database& db) : db_(db) {
  db_.exec_script(R"sql(
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      fingerprint TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
      fence INTEGER NOT NULL,
      locked_until INTEGER NOT NULL,
      response_status INTEGER,
      response_content_type TEXT,
      response_body BLOB
    );
  )sql");
}

Claim KeyTable::claim(const std::string& key, std::int64_t now_ms, const std::string& fingerprint,
                      std::int64_t lease_ms) const {
  // Its own transaction, committed at once: from here on every repeat sees the key in_progress.
  // WithNextCommit: no client knows of the claim yet; the money's commit makes it durable (db.h).
  auto tx = db_.begin_write(Durability::WithNextCommit);
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, created_at, fingerprint, state, fence, locked_until) "
               "VALUES (?1, ?2, ?3, 'in_progress', 1, ?4)")
      .bind(1, key)
      .bind(2, now_ms)
      .bind(3, fingerprint)
      .bind(4, now_ms + lease_ms)
      .run();
  Claim claim{tx.conn().last_insert_rowid(), 1};
  tx.commit();
  return claim;
}

std::optional<KeyRow> KeyTable::find(const std::string& key) const {
  auto row = db_.conn().prepare(
      "SELECT id, fingerprint, state, fence, locked_until, response_status, response_content_type, response_body "
      "FROM idempotency_keys WHERE key = ?1");
  if (!row.bind(1, key).step()) return std::nullopt;
  KeyRow r;
  r.key = key;
  r.id = row.column_int64(0);
  r.fingerprint = row.column_text(1);
  r.state = row.column_text(2);
  r.fence = row.column_int64(3);
  r.locked_until = row.column_int64(4);
  r.response.status = static_cast<int>(row.column_int64(5));
  r.response.content_type = row.column_text(6);
  r.response.body = row.column_text(7);
  return r;
}

std::optional<Claim> KeyTable::take_over(const KeyRow& expired, std::int64_t now_ms, std::int64_t lease_ms) const {
  // Conditional: only if nobody else completed it or took it over since we read it.
  auto tx = db_.begin_write(Durability::WithNextCommit);
  tx.conn()
      .prepare("UPDATE idempotency_keys SET fence = fence + 1, locked_until = ?1 "
               "WHERE id = ?2 AND fence = ?3 AND state = 'in_progress' AND locked_until <= ?4")
      .bind(1, now_ms + lease_ms)
      .bind(2, expired.id)
      .bind(3, expired.fence)
      .bind(4, now_ms)
      .run();
  bool taken = tx.conn().changes() == 1;
  tx.commit();
  if (!taken) return std::nullopt;
  return Claim{expired.id, expired.fence + 1};
}

bool KeyTable::holds(Connection& tx, const Claim& claim) const {
  // for_update(): the row stays ours to the end of the transaction, so no take-over slips in between this
  // check and complete() (PostgreSQL locks the row; SQLite's write transaction holds the whole file: db.h).
  auto row = tx.prepare("SELECT fence, state FROM idempotency_keys WHERE id = ?1" + std::string(tx.for_update()));
  return row.bind(1, claim.id).step() && row.column_int64(0) == claim.fence && row.column_text(1) == kInProgress;
}

void KeyTable::complete(Connection& tx, const Claim& claim, const StoredResponse& response) const {
  tx.prepare("UPDATE idempotency_keys SET state = 'completed', response_status = ?1, response_content_type = ?2, "
             "response_body = ?3 WHERE id = ?4 AND fence = ?5 AND state = 'in_progress'")
      .bind(1, response.status)
      .bind(2, response.content_type)
      .bind_blob(3, response.body)
      .bind(4, claim.id)
      .bind(5, claim.fence)
      .run();
  // Invariant: the caller checked holds() in this same transaction, so exactly one row changed.
  if (tx.changes() != 1) throw std::logic_error("completed a key whose claim was not held");
}

void KeyTable::release(const Claim& claim) const noexcept {
  // The request failed for a reason that is not its own (503): forget the claim so a retry may run.
  // If the database refuses even this, the claim stays until its lease runs out and a retry takes it
  // over: later, never wrong. The error being answered is the first one, not this.
  try {
    auto tx = db_.begin_write(Durability::WithNextCommit);
    tx.conn()
        .prepare("DELETE FROM idempotency_keys WHERE id = ?1 AND fence = ?2 AND state = 'in_progress'")
        .bind(1, claim.id)
        .bind(2, claim.fence)
        .run();
    tx.commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "release of key row %lld failed: %s (its lease will free it)\n",
                 static_cast<long long>(claim.id), e.what());
  }
}
