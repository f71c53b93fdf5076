// key_table.cc: stage 3's key table. See key_table.h.
//
// Schema:
//   idempotency_keys(key UNIQUE, fingerprint, created_at)
// fingerprint: SHA-256 (hex) of the RFC 8785 canonical body of the first request with this key.
// The UNIQUE constraint is the arbiter: of two requests with one key, exactly one INSERT succeeds, however
// close together they arrive, in this process or another one on the same file. No SELECT first: between a
// SELECT that finds nothing and the INSERT, the other request would find nothing too (see the wrong turn
// stages/wrong_turns/2a_select_then_insert). No INSERT OR IGNORE: it hides the one fact we need
// (see stages/wrong_turns/2b_insert_or_ignore).
#include "key_table.h"

KeyTable::KeyTable(lab::Database& db) : db_(db) {
  db_.exec_script(R"sql(
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      key         TEXT    NOT NULL UNIQUE,
      fingerprint TEXT    NOT NULL,
      created_at  INTEGER NOT NULL
    );
  )sql");
}

void KeyTable::insert(const std::string& key, const std::string& fingerprint, std::int64_t now_ms) const {
  // Its own statement, committed at once: the key is taken before any money moves.
  auto tx = db_.begin_write();
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, fingerprint, created_at) VALUES (?1, ?2, ?3)")
      .bind(1, key)
      .bind(2, fingerprint)
      .bind(3, now_ms)
      .run();
  tx.commit();
}

std::string KeyTable::fingerprint_of(const std::string& key) const {
  auto row = db_.conn().prepare("SELECT fingerprint FROM idempotency_keys WHERE key = ?1");
  return row.bind(1, key).step() ? row.column_text(0) : std::string();
}
