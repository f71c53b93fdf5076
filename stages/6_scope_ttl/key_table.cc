// key_table.cc: see key_table.h.
//
// Schema:
//   idempotency_keys(id, client_id, endpoint, key, created_at, fingerprint, state 'in_progress'|'completed',
//                    fence, locked_until, response_status, response_content_type, response_body, expires_at,
//                    UNIQUE (client_id, endpoint, key))
// The scope (client_id, endpoint, key) is what is unique: a key means something only to the client that
// made it, for the endpoint it sent it to. expires_at = created_at + --key-ttl: after it the key means
// nothing, and the row is deleted (see "expired" below).
// The stored response (set when completed): response_status (the HTTP status), response_content_type (the
// Content-Type header: the only header a repeat needs) and response_body (a BLOB: the exact bytes sent).
//
// The UNIQUE constraint is the arbiter: of two requests with one scope, exactly one INSERT succeeds, however
// close together they arrive, in this process or another one on the same file. No SELECT first: between a
// SELECT that finds nothing and the INSERT, the other request would find nothing too (see the wrong turn
// stages/wrong_turns/2a_select_then_insert). No INSERT OR IGNORE: it hides the one fact we need
// (see stages/wrong_turns/2b_insert_or_ignore).
//
// A key's life:
//
//        claim()                       holds() + complete(), in the money's transaction
//   (none) ------> in_progress -----------------------------------------------> completed
//     ^ ^ ^          |  |  ^  \                                                  |
//     | | | release()|  |  |   \ take_over(): locked_until passed, fence + 1       |
//     | | +----------+  |  +---+                                                 |
//     | +---------------+ expired: expires_at passed, and its lease too          |
//     +--------------------------------------------------------------------------+ expired: expires_at passed
//
// Expired rows are deleted by claim(), for its own scope, and in batches by the sweeper (delete_expired()),
// both with the one condition kExpired. An in_progress row within its lease is not expired, even past
// expires_at: its holder may be about to complete it.
//
//   state        guarantees
//   in_progress  one request holds the key (the one whose Claim names this row's id and fence); no money
//                has moved under it, because money and `completed` commit in one transaction.
//   completed    the outcome is settled: the money moved exactly once (201) or not at all (402, 404, 400);
//                the response first sent is stored, and every repeat gets exactly those bytes, until the
//                key expires; then the same request is a new request.
//
// The fence: a claim whose lease ran out is taken over with a conditional UPDATE that bumps the fence.
// The first holder, if it was merely slow, then finds the fence changed when it tries to complete, and
// rolls its transaction back: the money cannot move twice.
#include "key_table.h"

#include <cstdio>
#include <stdexcept>

using namespace lab;

// The one definition of an expired row, with ?1 = now (lab clock, ms). See the drawing above.
static const std::string kExpired = "expires_at <= ?1 AND (state = 'completed' OR locked_until <= ?1)";

KeyTable::KeyTable(Database& db) : db_(db) {
  db_.exec_script(R"sql(
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      client_id INTEGER NOT NULL REFERENCES clients(id),
      endpoint TEXT NOT NULL,
      key TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      fingerprint TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')),
      fence INTEGER NOT NULL,
      locked_until INTEGER NOT NULL,
      response_status INTEGER,
      response_content_type TEXT,
      response_body BLOB,
      expires_at INTEGER NOT NULL,
      UNIQUE (client_id, endpoint, key)
    );
    CREATE INDEX IF NOT EXISTS idempotency_keys_by_expiry ON idempotency_keys (expires_at);
  )sql");
}

Claim KeyTable::claim(const Scope& scope, std::int64_t now_ms, const std::string& fingerprint,
                      std::int64_t lease_ms, std::int64_t ttl_ms) const {
  // Its own transaction, committed at once: from here on every repeat sees the key in_progress.
  // WithNextCommit: no client knows of the claim yet; the money's commit makes it durable (db.h).
  auto tx = db_.begin_write(Durability::WithNextCommit);
  // An expired row of this scope is gone already, even if the sweeper has not reached it yet.
  tx.conn()
      .prepare("DELETE FROM idempotency_keys WHERE " + kExpired + " AND client_id = ?2 AND endpoint = ?3 AND key = ?4")
      .bind(1, now_ms)
      .bind(2, scope.client_id)
      .bind(3, scope.endpoint)
      .bind(4, scope.key)
      .run();
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, created_at, fingerprint, state, fence, locked_until, client_id, "
               "endpoint, expires_at) VALUES (?1, ?2, ?3, 'in_progress', 1, ?4, ?5, ?6, ?7)")
      .bind(1, scope.key)
      .bind(2, now_ms)
      .bind(3, fingerprint)
      .bind(4, now_ms + lease_ms)
      .bind(5, scope.client_id)
      .bind(6, scope.endpoint)
      .bind(7, now_ms + ttl_ms)
      .run();
  Claim claim{tx.conn().last_insert_rowid(), 1};
  tx.commit();
  return claim;
}

std::optional<KeyRow> KeyTable::find(const Scope& scope) const {
  auto row = db_.conn().prepare(
      "SELECT id, fingerprint, state, fence, locked_until, response_status, response_content_type, response_body, "
      "expires_at FROM idempotency_keys WHERE client_id = ?1 AND endpoint = ?2 AND key = ?3");
  if (!row.bind(1, scope.client_id).bind(2, scope.endpoint).bind(3, scope.key).step()) return std::nullopt;
  KeyRow r;
  r.scope = scope;
  r.id = row.column_int64(0);
  r.fingerprint = row.column_text(1);
  r.state = row.column_text(2);
  r.fence = row.column_int64(3);
  r.locked_until = row.column_int64(4);
  r.response.status = static_cast<int>(row.column_int64(5));
  r.response.content_type = row.column_text(6);
  r.response.body = row.column_text(7);
  r.expires_at = row.column_int64(8);
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

int KeyTable::delete_expired(std::int64_t now_ms, int batch) const {
  // One bounded batch per transaction, so the sweeper never holds the write lock for long.
  auto tx = db_.begin_write();
  tx.conn()
      .prepare("DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys WHERE " + kExpired +
               " LIMIT ?2)")
      .bind(1, now_ms)
      .bind(2, batch)
      .run();
  int deleted = tx.conn().changes();
  tx.commit();
  return deleted;
}
