// db_test.cc: the SQLite layer reports a UNIQUE violation as a typed error and rolls back what is not committed.
#include "common/db.h"

#include <catch2/catch.hpp>

#include "tests/common/temp_dir.h"

using namespace lab;

TEST_CASE("a second INSERT of the same unique key throws UniqueViolation", "[db]") {
  testing::TempDir dir;
  Database db(dir.file("t.db"));
  db.exec_script("CREATE TABLE keys (key TEXT NOT NULL UNIQUE)");
  db.conn().prepare("INSERT INTO keys (key) VALUES (?1)").bind(1, "k1").run();
  CHECK_THROWS_AS(db.conn().prepare("INSERT INTO keys (key) VALUES (?1)").bind(1, "k1").run(), UniqueViolation);
  db.conn().prepare("INSERT INTO keys (key) VALUES (?1)").bind(1, "k2").run();   // the statement is reusable
}

TEST_CASE("a write transaction that is not committed leaves nothing behind", "[db]") {
  testing::TempDir dir;
  Database db(dir.file("t.db"));
  db.exec_script("CREATE TABLE t (v INTEGER)");
  {
    auto tx = db.begin_write();
    tx.conn().prepare("INSERT INTO t (v) VALUES (1)").run();
  }
  {
    auto tx = db.begin_write();
    tx.conn().prepare("INSERT INTO t (v) VALUES (2)").run();
    tx.commit();
  }
  auto row = db.conn().prepare("SELECT group_concat(v) FROM t");
  row.step();
  CHECK(row.column_text(0) == "2");
}

TEST_CASE("a bad SQL statement is a DatabaseError and not a crash", "[db]") {
  testing::TempDir dir;
  Database db(dir.file("t.db"));
  CHECK_THROWS_AS(db.conn().prepare("SELEC nonsense"), DatabaseError);
}

TEST_CASE("the database is in WAL mode", "[db]") {
  testing::TempDir dir;
  Database db(dir.file("t.db"));
  auto row = db.conn().prepare("PRAGMA journal_mode");
  row.step();
  CHECK(row.column_text(0) == "wal");
}

namespace {
// PRAGMA synchronous as SQLite reports it: 1 NORMAL, 2 FULL.
std::int64_t synchronous_level(Database& db) {
  auto row = db.conn().prepare("PRAGMA synchronous");
  row.step();
  return row.column_int64(0);
}
}  // namespace

TEST_CASE("the server's sync level sets how every commit reaches the disk", "[db]") {
  testing::TempDir dir;
  Database full(dir.file("full.db"), Sync::Full);
  CHECK(synchronous_level(full) == 2);
  Database normal(dir.file("normal.db"), Sync::Normal);
  CHECK(synchronous_level(normal) == 1);
}

TEST_CASE("a commit WithNextCommit is not fsynced, and the level is FULL again after it", "[db]") {
  testing::TempDir dir;
  Database db(dir.file("t.db"), Sync::Full);
  db.exec_script("CREATE TABLE t (v INTEGER)");
  {
    auto claim = db.begin_write(Durability::WithNextCommit);
    CHECK(synchronous_level(db) == 1);   // the commit below writes the WAL without an fsync
    claim.conn().prepare("INSERT INTO t (v) VALUES (1)").run();
    claim.commit();
  }
  CHECK(synchronous_level(db) == 2);
  {
    auto rolled_back = db.begin_write(Durability::WithNextCommit);   // never committed: restored all the same
  }
  CHECK(synchronous_level(db) == 2);
  {
    auto money = db.begin_write();
    CHECK(synchronous_level(db) == 2);   // the durable commit: its fsync covers the claim before it
    money.commit();
  }
  Database normal(dir.file("n.db"), Sync::Normal);
  { auto claim = normal.begin_write(Durability::WithNextCommit); }
  CHECK(synchronous_level(normal) == 1);   // at --sync normal nothing is ever raised to FULL
}
