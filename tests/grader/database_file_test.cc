// database_file_test.cc: `grader soak` reads a server's SQLite file from outside (R7): a sound file passes,
// a damaged one and a key stuck in_progress past its lease are seen. Each file is made with the sqlite3
// program, as the grader reads it; without that program the tests have nothing to read and say so.
#include "grader/wire/database_file.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace grader;

namespace {

// A fresh file path in a folder of its own, removed with it.
struct TempDatabase {
  std::filesystem::path dir;
  std::string path;
  TempDatabase() {
    std::string pattern = (std::filesystem::temp_directory_path() / "soak-db-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
    path = (dir / "lab.db").string();
  }
  ~TempDatabase() { std::filesystem::remove_all(dir); }
  // Runs SQL on the file with the sqlite3 program; false if the program is missing or failed.
  bool run(const std::string& sql) const {
    return std::system(("sqlite3 '" + path + "' \"" + sql + "\" >/dev/null 2>&1").c_str()) == 0;
  }
};

// The reference stages' key table, reduced to the columns R7 reads (docs/learn/stage-4-two-phase.md "Stage 4: in_progress, then completed", the SQL).
constexpr const char* kKeyTable =
    "CREATE TABLE idempotency_keys (key TEXT, state TEXT, locked_until INTEGER);"
    "INSERT INTO idempotency_keys VALUES ('k-done', 'completed', 1000), ('k-held', 'in_progress', 5000),"
    "('k-stuck', 'in_progress', 2000);";

}  // namespace

TEST_CASE("a sound database file passes integrity_check, and only a key past its lease is stuck") {
  TempDatabase db;
  if (!db.run(kKeyTable)) {
    WARN("no sqlite3 program: nothing to test");
    return;
  }
  DatabaseFileReading r = read_database_file(db.path, 3000);
  CHECK(r.unavailable.empty());
  CHECK(r.integrity == "ok");
  REQUIRE(r.stuck_keys);
  REQUIRE(r.stuck_keys->size() == 1);
  CHECK(r.stuck_keys->front() == "k-stuck (lease ended at 2000 ms)");
}

TEST_CASE("a file without the reference key table is read for its integrity only") {
  TempDatabase db;
  if (!db.run("CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount INTEGER);")) {
    WARN("no sqlite3 program: nothing to test");
    return;
  }
  DatabaseFileReading r = read_database_file(db.path, 3000);
  CHECK(r.integrity == "ok");
  CHECK_FALSE(r.stuck_keys);
}

TEST_CASE("a damaged database file fails integrity_check") {
  TempDatabase db;
  // Enough rows for an index of several pages, so that damage in the middle of the file hits a b-tree page.
  if (!db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX t_v ON t (v);"
              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
              "INSERT INTO t SELECT i, hex(randomblob(16)) FROM n;")) {
    WARN("no sqlite3 program: nothing to test");
    return;
  }
  const auto size = std::filesystem::file_size(db.path);
  {
    std::fstream file(db.path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(size / 2));
    const std::string garbage(4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  DatabaseFileReading r = read_database_file(db.path, 0);
  CHECK(r.unavailable.empty());
  CHECK(r.integrity != "ok");
}
