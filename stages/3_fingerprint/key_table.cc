// key_table.cc: see key_table.h.
//
// Schema:
//   idempotency_keys(key UNIQUE, created_at, fingerprint)
// fingerprint: SHA-256 (hex) of the RFC 8785 canonical body of the first request with this key.
//
// The UNIQUE constraint is the arbiter: of two requests with one key, exactly one INSERT succeeds, however
// close together they arrive, in this process or another one on the same file. No SELECT first: between a
// SELECT that finds nothing and the INSERT, the other request would find nothing too (see the wrong turn
// stages/wrong_turns/2a_select_then_insert). No INSERT OR IGNORE: it hides the one fact we need
// (see stages/wrong_turns/2b_insert_or_ignore).
#include "key_table.h"

using namespace lab;

KeyTable::KeyTable(Database& db) : db_(db) {
  db_.exec_script(R"sql(
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      key TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      fingerprint TEXT NOT NULL
    );
  )sql");
}

void KeyTable::insert(const std::string& key, std::int64_t now_ms, const std::string& fingerprint) const {
  // Its own transaction, committed at once: the key is taken before any money moves.
  // WithNextCommit: no client knows of the key yet; the money's commit makes it durable (db.h).
  auto tx = db_.begin_write(Durability::WithNextCommit);
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, created_at, fingerprint) "
               "VALUES (?1, ?2, ?3)")
      .bind(1, key)
      .bind(2, now_ms)
      .bind(3, fingerprint)
      .run();
  tx.commit();
}

std::string KeyTable::fingerprint_of(const std::string& key) const {
  auto row = db_.conn().prepare("SELECT fingerprint FROM idempotency_keys WHERE key = ?1");
  return row.bind(1, key).step() ? row.column_text(0) : std::string();
}
