// key_table.cc: see key_table.h. docs/learn/for-learners.md "For learners".
//
// The table grows one stage at a time, the way a real table grows: each stage adds its columns with a
// migration (add_column), and find() reads the columns by name. Stage 2's UNIQUE column is the arbiter from
// then on: of two requests with one key, exactly one INSERT succeeds, however close together they arrive.
// No SELECT first, no INSERT OR IGNORE (docs/teach/wrong-turns.md "Wrong turns").
#include "key_table.h"

#include <cstdio>
#include <stdexcept>

using namespace lab;

// Adds a column unless the table has it already: a server restarted on the same file runs this again.
static void add_column(Database& db, const std::string& definition) {
  const std::string name = definition.substr(0, definition.find(' '));
  auto existing = db.conn().prepare("SELECT 1 FROM pragma_table_info('idempotency_keys') WHERE name = ?1");
  if (!existing.bind(1, name).step()) db.exec_script("ALTER TABLE idempotency_keys ADD COLUMN " + definition + ";");
}

// LAB BEGIN 6 expired: past its retention, and no live claim holds it (?1 is now, lab clock, ms)
static const std::string kExpired = "expires_at <= ?1 AND (state = 'completed' OR locked_until <= ?1)";
// LAB END

std::string Scope::stored_key() const {
  // LAB BEGIN 6 the key's scope: unique per (client, endpoint, key), so the UNIQUE column holds all three
  // Unambiguous: neither a client id nor an endpoint contains a space, so only the key may.
  return std::to_string(client_id) + ' ' + endpoint + ' ' + key;
  // LAB ELSE
  return key;
  // LAB END
}

KeyTable::KeyTable(Database& db) : db_(db) {
  // LAB BEGIN 2 the key table, whose UNIQUE column decides which request with a key is the first
  db_.exec_script(R"sql(
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL
    );
  )sql");
  // LAB END
  // LAB BEGIN 3 a column for the fingerprint of the first request's body
  add_column(db_, "fingerprint TEXT NOT NULL DEFAULT ''");
  // LAB END
  // LAB BEGIN 4 columns for the two phases (state, fence, lease) and for the outcome
  add_column(db_, "state TEXT NOT NULL DEFAULT 'in_progress'");
  add_column(db_, "fence INTEGER NOT NULL DEFAULT 1");
  add_column(db_, "locked_until INTEGER NOT NULL DEFAULT 0");
  add_column(db_, "status INTEGER");
  add_column(db_, "entry_id INTEGER");
  add_column(db_, "problem_type TEXT");
  add_column(db_, "problem_detail TEXT");
  // LAB END
  // LAB BEGIN 5 columns for the response first sent, byte for byte
  add_column(db_, "response_status INTEGER");
  add_column(db_, "response_content_type TEXT");
  add_column(db_, "response_body BLOB");
  // LAB END
  // LAB BEGIN 6 a column for the key's retention, indexed for the sweeper
  add_column(db_, "expires_at INTEGER NOT NULL DEFAULT 0");
  db_.exec_script("CREATE INDEX IF NOT EXISTS idempotency_keys_by_expiry ON idempotency_keys (expires_at);");
  // LAB END
}

Claim KeyTable::claim(const Scope& scope, std::int64_t now_ms, const std::string& fingerprint,
                      std::int64_t lease_ms, std::int64_t ttl_ms) const {
  // Its own transaction, committed at once: the key is taken before any money moves.
  // WithNextCommit: no client knows of the claim yet; the money's commit makes it durable (db.h).
  auto tx = db_.begin_write(Durability::WithNextCommit);
  Claim claim{0, 1};
  // LAB BEGIN 6 an expired row of this scope is gone already, even if the sweeper has not reached it
  tx.conn()
      .prepare("DELETE FROM idempotency_keys WHERE key = ?2 AND " + kExpired)
      .bind(1, now_ms)
      .bind(2, scope.stored_key())
      .run();
  // LAB END
  // LAB BEGIN 2 take the key: for a key already taken this INSERT fails (UniqueViolation), and that is the answer
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, created_at) VALUES (?1, ?2)")
      .bind(1, scope.stored_key())
      .bind(2, now_ms)
      .run();
  claim.id = tx.conn().last_insert_rowid();
  // LAB END
  // LAB BEGIN 3 remember what the first request looked like
  tx.conn().prepare("UPDATE idempotency_keys SET fingerprint = ?1 WHERE id = ?2").bind(1, fingerprint).bind(2, claim.id).run();
  // LAB END
  // LAB BEGIN 4 the key is in progress, held by this claim until its lease runs out
  tx.conn()
      .prepare("UPDATE idempotency_keys SET state = 'in_progress', fence = 1, locked_until = ?1 WHERE id = ?2")
      .bind(1, now_ms + lease_ms)
      .bind(2, claim.id)
      .run();
  // LAB END
  // LAB BEGIN 6 the key expires after --key-ttl
  tx.conn().prepare("UPDATE idempotency_keys SET expires_at = ?1 WHERE id = ?2").bind(1, now_ms + ttl_ms).bind(2, claim.id).run();
  // LAB END
  tx.commit();
  return claim;
}

std::optional<KeyRow> KeyTable::find(const Scope& scope) const {
  KeyRow r;
  r.scope = scope;
  // LAB BEGIN 2 the row of this key; SELECT *, since each stage adds columns, read by name
  auto row = db_.conn().prepare("SELECT * FROM idempotency_keys WHERE key = ?1");
  if (!row.bind(1, scope.stored_key()).step()) return std::nullopt;
  auto column = [&row](const char* name) { return row.column_index(name); };
  r.id = row.column_int64(column("id"));
  // LAB ELSE
  return std::nullopt;
  // LAB END
  // LAB BEGIN 3 the fingerprint
  r.fingerprint = row.column_text(column("fingerprint"));
  // LAB END
  // LAB BEGIN 4 the state, the claim and the outcome
  r.state = row.column_text(column("state"));
  r.fence = row.column_int64(column("fence"));
  r.locked_until = row.column_int64(column("locked_until"));
  r.status = static_cast<int>(row.column_int64(column("status")));
  if (!row.column_is_null(column("entry_id"))) r.entry_id = row.column_int64(column("entry_id"));
  r.problem_type = row.column_text(column("problem_type"));
  r.problem_detail = row.column_text(column("problem_detail"));
  // LAB END
  // LAB BEGIN 5 the response first sent
  r.response.status = static_cast<int>(row.column_int64(column("response_status")));
  r.response.content_type = row.column_text(column("response_content_type"));
  r.response.body = row.column_text(column("response_body"));
  // LAB END
  // LAB BEGIN 6 when the key expires
  r.expires_at = row.column_int64(column("expires_at"));
  // LAB END
  return r;
}

std::optional<Claim> KeyTable::take_over(const KeyRow& expired, std::int64_t now_ms, std::int64_t lease_ms) const {
  // LAB BEGIN 4 a claim whose lease ran out: take it over, bumping the fence, only if nobody else did
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
  // LAB ELSE
  return std::nullopt;
  // LAB END
}

bool KeyTable::holds(Connection& tx, const Claim& claim) const {
  // LAB BEGIN 4 is the claim still ours? The fence says, inside the money's transaction
  // for_update(): the row stays ours to the end of the transaction, so no take-over slips in between this
  // check and complete() (PostgreSQL locks the row; SQLite's write transaction holds the whole file: db.h).
  auto row = tx.prepare("SELECT fence, state FROM idempotency_keys WHERE id = ?1" + std::string(tx.for_update()));
  return row.bind(1, claim.id).step() && row.column_int64(0) == claim.fence && row.column_text(1) == kInProgress;
  // LAB ELSE
  return true;
  // LAB END
}

void KeyTable::complete(Connection& tx, const Claim& claim, const MoneyOutcome& outcome,
                        const StoredResponse& response) const {
  // LAB BEGIN 4 completed, with its outcome, in the money's transaction
  auto update = tx.prepare(
      "UPDATE idempotency_keys SET state = 'completed', status = ?1, entry_id = ?2, problem_type = ?3, "
      "problem_detail = ?4 WHERE id = ?5 AND fence = ?6 AND state = 'in_progress'");
  if (auto* entry = std::get_if<LedgerEntry>(&outcome)) {
    update.bind(1, 201).bind(2, entry->id).bind(3, nullptr).bind(4, nullptr);
  } else {
    const auto& problem = std::get<Problem>(outcome);
    update.bind(1, problem.status()).bind(2, nullptr).bind(3, problem.slug()).bind(4, problem.detail);
  }
  update.bind(5, claim.id).bind(6, claim.fence).run();
  // Invariant: the caller checked holds() in this same transaction, so exactly one row changed.
  if (tx.changes() != 1) throw std::logic_error("completed a key whose claim was not held");
  // LAB END
  // LAB BEGIN 5 keep the response itself, for every repeat
  tx.prepare("UPDATE idempotency_keys SET response_status = ?1, response_content_type = ?2, response_body = ?3 "
             "WHERE id = ?4")
      .bind(1, response.status)
      .bind(2, response.content_type)
      .bind_blob(3, response.body)
      .bind(4, claim.id)
      .run();
  // LAB END
}

void KeyTable::release(const Claim& claim) const noexcept {
  // LAB BEGIN 4 the request failed for a reason that is not its own (503): free the key for a retry
  // If the database refuses even this, the claim waits out its lease: later, never wrong.
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
  // LAB END
}

int KeyTable::delete_expired(std::int64_t now_ms, int batch) const {
  // LAB BEGIN 6 delete expired rows, one bounded batch per transaction
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
  // LAB ELSE
  return 0;
  // LAB END
}
