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
