// key_table.cc: WRONG TURN 2b's key table. docs/teach/wrong-turns.md "Wrong turns". The rest of this server is stage 2's,
// unchanged (its handler, its key_table.h): the handler's catch (const UniqueViolation&) never runs.
//
// WRONG: INSERT OR IGNORE turns the UNIQUE violation, the one fact the handler needs, into silence. The
// constraint still keeps one row per key, but the handler can no longer tell a repeat from a first request,
// so it executes every retry. (Checking sqlite3_changes() afterwards would rebuild the exception by hand;
// code written this way rarely does, and ORMs' "ignore duplicates" options hide even that.)
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
      .prepare("INSERT OR IGNORE INTO idempotency_keys (key, created_at) "
               "VALUES (?1, ?2)")
      .bind(1, key)
      .bind(2, now_ms)
      .run();
  tx.commit();
}
