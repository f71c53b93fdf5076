// store_test.cc: the PostgreSQL store keeps the promises db.h makes, on a real server, across "instances"
// (several Database objects on one database, as several processes would be). Needs LAB_TEST_POSTGRES=<the
// socket directory of a running cluster>; tests/postgres/CMakeLists.txt starts one (scripts/pg-cluster.sh).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "common/bank.h"
#include "common/db.h"
#include "common/lab_clock.h"

using namespace lab;

namespace {

// A new database of the test cluster, created by the first Database that opens it.
std::string fresh_database() {
  const char* socket_dir = std::getenv("LAB_TEST_POSTGRES");
  REQUIRE(socket_dir != nullptr);
  static std::atomic<int> made{0};
  return "postgresql:///lab_unit_" + std::to_string(::getpid()) + "_" + std::to_string(++made) +
         "?host=" + std::string(socket_dir) + "&user=lab";
}

MoneyRequest transfer(std::int64_t from, std::int64_t to, std::int64_t amount) {
  MoneyRequest r;
  r.endpoint = Endpoint::Transfers;
  r.from_account = from;
  r.to_account = to;
  r.amount = amount;
  r.currency = "USD";
  r.memo = "test";
  return r;
}

}  // namespace

TEST_CASE("PostgreSQL: a second INSERT of a unique key throws UniqueViolation, and the statement is reusable", "[postgres]") {
  Database db(fresh_database());
  db.exec_script("CREATE TABLE IF NOT EXISTS keys (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE)");
  db.conn().prepare("INSERT INTO keys (key) VALUES (?1)").bind(1, "k1").run();
  CHECK(db.conn().changes() == 1);
  CHECK(db.conn().last_insert_rowid() == 1);
  CHECK_THROWS_AS(db.conn().prepare("INSERT INTO keys (key) VALUES (?1)").bind(1, "k1").run(), UniqueViolation);
  db.conn().prepare("INSERT INTO keys (key) VALUES (?1)").bind(1, "k2").run();
  CHECK(db.conn().last_insert_rowid() == 3);   // the failed INSERT used id 2: identities are never reused
}

TEST_CASE("PostgreSQL: a transaction whose statement failed commits nothing, and says so", "[postgres]") {
  // The trap: PostgreSQL answers COMMIT of a failed transaction with the tag ROLLBACK, not an error.
  Database db(fresh_database());
  db.exec_script("CREATE TABLE IF NOT EXISTS t (v INTEGER NOT NULL UNIQUE)");
  db.conn().prepare("INSERT INTO t (v) VALUES (1)").run();
  {
    auto tx = db.begin_write();
    tx.conn().prepare("INSERT INTO t (v) VALUES (2)").run();
    CHECK_THROWS_AS(tx.conn().prepare("INSERT INTO t (v) VALUES (1)").run(), UniqueViolation);
    CHECK_THROWS_AS(tx.commit(), DatabaseError);
  }
  {
    auto tx = db.begin_write();   // never committed: rolled back by the destructor
    tx.conn().prepare("INSERT INTO t (v) VALUES (3)").run();
  }
  auto row = db.conn().prepare("SELECT COUNT(*), SUM(v) FROM t");
  REQUIRE(row.step());
  CHECK(row.column_int64(0) == 1);
  CHECK(row.column_int64(1) == 1);
}

TEST_CASE("PostgreSQL: integers are 64-bit, NULL is NULL, and a BLOB comes back byte for byte", "[postgres]") {
  Database db(fresh_database());
  db.exec_script("CREATE TABLE IF NOT EXISTS t (n INTEGER, s TEXT, b BLOB)");
  std::string every_byte;
  for (int i = 0; i < 256; ++i) every_byte += static_cast<char>(i);
  db.conn().prepare("INSERT INTO t (n, s, b) VALUES (?1, ?2, ?3)")
      .bind(1, std::int64_t{9'007'199'254'740'991} * 1000)
      .bind(2, std::optional<std::string>())
      .bind_blob(3, every_byte)
      .run();
  auto row = db.conn().prepare("SELECT n, s, b FROM t");
  REQUIRE(row.step());
  CHECK(row.column_int64(0) == std::int64_t{9'007'199'254'740'991} * 1000);
  CHECK(row.column_is_null(1));
  CHECK_FALSE(row.column_is_null(2));
  CHECK(row.column_text(2) == every_byte);
  CHECK(row.column_index("b") == 2);
  CHECK_FALSE(row.step());
}

TEST_CASE("PostgreSQL: of 16 instances claiming one key at once, exactly one INSERT succeeds", "[postgres]") {
  const std::string uri = fresh_database();
  Database setup(uri);
  setup.exec_script("CREATE TABLE IF NOT EXISTS claims (key TEXT NOT NULL UNIQUE, who INTEGER NOT NULL)");
  for (int round = 0; round < 20; ++round) {
    std::vector<std::unique_ptr<Database>> instances;
    for (int i = 0; i < 4; ++i) instances.push_back(std::make_unique<Database>(uri));
    std::atomic<int> winners{0}, repeats{0}, ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 16; ++t)
      threads.emplace_back([&, t] {
        Database& db = *instances[static_cast<std::size_t>(t % 4)];
        ++ready;
        while (ready < 16) std::this_thread::yield();
        try {
          auto tx = db.begin_write(Durability::WithNextCommit);
          tx.conn().prepare("INSERT INTO claims (key, who) VALUES (?1, ?2)").bind(1, "k" + std::to_string(round)).bind(2, t).run();
          tx.commit();
          ++winners;
        } catch (const UniqueViolation&) {
          ++repeats;
        }
        db.end_of_request();
      });
    for (auto& thread : threads) thread.join();
    INFO("round " << round);
    CHECK(winners == 1);
    CHECK(repeats == 15);
  }
}

TEST_CASE("PostgreSQL: a row read for_update() stays as read until the transaction ends", "[postgres]") {
  const std::string uri = fresh_database();
  Database first(uri), second(uri);
  first.exec_script("CREATE TABLE IF NOT EXISTS keys (id INTEGER PRIMARY KEY, fence INTEGER NOT NULL)");
  first.conn().prepare("INSERT INTO keys (fence) VALUES (1)").run();
  std::atomic<bool> taken_over{false};
  std::thread take_over;
  {
    auto tx = first.begin_write();
    auto row = tx.conn().prepare("SELECT fence FROM keys WHERE id = 1" + std::string(tx.conn().for_update()));
    REQUIRE(row.step());
    REQUIRE(row.column_int64(0) == 1);
    row.run();
    // Another instance's conditional take-over must wait for this transaction.
    take_over = std::thread([&] {
      second.conn().prepare("UPDATE keys SET fence = fence + 1 WHERE id = 1 AND fence = 1").run();
      taken_over = second.conn().changes() == 1;
      second.end_of_request();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK_FALSE(taken_over);
    tx.conn().prepare("UPDATE keys SET fence = 10 WHERE id = 1 AND fence = 1").run();
    CHECK(tx.conn().changes() == 1);
    tx.commit();
  }
  take_over.join();
  CHECK_FALSE(taken_over);   // it saw fence 10 once the lock was released: its condition no longer held
}

TEST_CASE("PostgreSQL: transfers in both directions from many instances neither deadlock nor overdraw", "[postgres]") {
  const std::string uri = fresh_database();
  std::vector<std::unique_ptr<Database>> dbs;
  std::vector<std::unique_ptr<LabClock>> clocks;
  std::vector<std::unique_ptr<Bank>> banks;
  for (int i = 0; i < 3; ++i) {
    dbs.push_back(std::make_unique<Database>(uri));
    clocks.push_back(std::make_unique<LabClock>(*dbs.back()));
    banks.push_back(std::make_unique<Bank>(*dbs.back(), *clocks.back()));
  }
  auto alice = banks[0]->create_client("alice");
  Account a = banks[0]->create_account(alice.client.id, 1'000, "USD");
  Account b = banks[0]->create_account(alice.client.id, 1'000, "USD");
  dbs[0]->end_of_request();
  std::atomic<int> moved{0}, refused{0}, busy{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 12; ++t)
    threads.emplace_back([&, t] {
      Database& db = *dbs[static_cast<std::size_t>(t % 3)];
      Bank& bank = *banks[static_cast<std::size_t>(t % 3)];
      for (int i = 0; i < 40; ++i) {
        bool forward = (t + i) % 2 == 0;
        try {
          auto tx = db.begin_write();
          auto outcome = bank.move_money(tx.conn(), alice.client, transfer(forward ? a.id : b.id, forward ? b.id : a.id, 70));
          tx.commit();
          std::holds_alternative<LedgerEntry>(outcome) ? ++moved : ++refused;
        } catch (const DatabaseBusy&) {
          ++busy;
        }
        db.end_of_request();
      }
    });
  for (auto& thread : threads) thread.join();
  CHECK(busy == 0);   // no deadlock (40P01) and no lock timeout
  CHECK(moved + refused == 480);
  Totals totals = banks[1]->totals();
  CHECK(totals.conserved());
  CHECK(banks[1]->find_account(a.id)->balance >= 0);
  CHECK(banks[1]->find_account(b.id)->balance >= 0);
  CHECK(banks[1]->find_account(a.id)->balance + banks[1]->find_account(b.id)->balance == 2'000);
}

TEST_CASE("PostgreSQL: instances share one lab clock", "[postgres]") {
  const std::string uri = fresh_database();
  Database first(uri), second(uri);
  LabClock first_clock(first), second_clock(second);
  REQUIRE(first_clock.advance(3'600'000).has_value());
  CHECK(second_clock.offset_ms() == 3'600'000);
  CHECK(second_clock.now_ms() >= first_clock.now_ms() - 1'000);
}

TEST_CASE("PostgreSQL: three instances starting at once on a new database all find one schema", "[postgres]") {
  const std::string uri = fresh_database();
  std::atomic<int> started{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&] {
      try {
        Database db(uri);
        LabClock clock(db);
        Bank bank(db, clock);
        ++started;
      } catch (const std::exception& e) {
        UNSCOPED_INFO(e.what());
        ++failed;
      }
    });
  for (auto& thread : threads) thread.join();
  CHECK(started == 3);
  CHECK(failed == 0);
}

TEST_CASE("PostgreSQL: a server that cannot be reached is a DatabaseError at start-up, not a crash", "[postgres]") {
  CHECK_THROWS_AS(Database("postgresql:///lab?host=/nonexistent-socket-dir&user=lab&connect_timeout=2"), DatabaseError);
}
