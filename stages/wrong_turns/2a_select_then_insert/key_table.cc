// key_table.cc: WRONG TURN 2a's key table. See key_table.h. docs/teach/wrong-turns.md "Wrong turns".
//
// Schema:
//   idempotency_keys(key, created_at)   -- WRONG: no UNIQUE constraint
//
// WRONG: nothing in the table stops a second row with the same key. The handler is meant to keep keys
// apart by asking exists() before insert(), but two requests can both ask before either inserts: both
// find nothing, both insert, both move the money. Stage 2's UNIQUE constraint makes the INSERT itself the
// question, answered by the database for everyone at once.
#include "key_table.h"

using namespace lab;

KeyTable::KeyTable(Database& db) : db_(db) {
  db_.exec_script(R"sql(
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      key TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
  )sql");
}

bool KeyTable::exists(const std::string& key) const {
  auto row = db_.conn().prepare("SELECT 1 FROM idempotency_keys WHERE key = ?1");
  return row.bind(1, key).step();
}

void KeyTable::insert(const std::string& key, std::int64_t now_ms) const {
  // Its own transaction, committed at once: the key is taken before any money moves.
  // WithNextCommit: no client knows of the key yet; the money's commit makes it durable (db.h).
  auto tx = db_.begin_write(Durability::WithNextCommit);
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, created_at) "
               "VALUES (?1, ?2)")
      .bind(1, key)
      .bind(2, now_ms)
      .run();
  tx.commit();
}
