// key_table.cc: see key_table.h.
//
// Schema:
//   idempotency_keys(key UNIQUE, created_at)
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
      created_at INTEGER NOT NULL
    );
  )sql");
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
