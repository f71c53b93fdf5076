// stage5_test.cc: stage 5 over real HTTP. Repeats get the stored response byte for byte; keys are still
// global, so another client's repeat leaks a stranger's response (its kept flaw).
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <thread>

#include "tests/e2e/http_burst.h"
#include "tests/e2e/world.h"

using namespace lab::testing;

TEST_CASE("stage 5 replays a completed key byte for byte after the balance changed", "[e2e][stage5]") {
  World w("stage5_replay");
  auto first = w.send("k", w.body(100));
  REQUIRE(first.status == 201);
  CHECK(first.header("Idempotent-Replayed").empty());
  CHECK(w.send("other", w.body(1'000)).status == 201);
  auto repeat = w.send("k", w.body(100));
  CHECK(repeat.status == 201);
  CHECK(repeat.body == first.body);
  CHECK(repeat.header("Content-Type") == first.header("Content-Type"));
  CHECK(repeat.header("Idempotent-Replayed") == "true");
  CHECK(w.transfers() == 2);
}

TEST_CASE("stage 5 replays a stored 402 identically", "[e2e][stage5]") {
  World w("stage5_replay");
  auto first = w.send("k", w.body(20'000));
  REQUIRE(first.status == 402);
  auto repeat = w.send("k", w.body(20'000));
  CHECK(repeat.status == 402);
  CHECK(repeat.body == first.body);
  CHECK(repeat.header("Content-Type") == "application/problem+json");
}

TEST_CASE("stage 5 answers a burst of simultaneous repeats after completion identically", "[e2e][stage5][burst]") {
  World w("stage5_replay");
  auto first = w.send("k", w.body(100));
  auto replies = burst(16, [&](int) { return w.send("k", w.body(100)); });
  for (auto& r : replies) {
    CHECK(r.status == 201);
    CHECK(r.body == first.body);
  }
  CHECK(w.transfers() == 1);
}

TEST_CASE("stage 5 leaks a stored response to another client who sends the same key and body (its flaw)", "[e2e][stage5][flaw]") {
  World w("stage5_replay");
  auto first = w.send("order-7", w.body(100));
  auto mallory = w.admin.create_client("mallory");
  auto leaked = w.send_as(mallory, "order-7", w.body(100));
  CHECK(leaked.status == 201);
  CHECK(leaked.body == first.body);   // alice's balance, seen by mallory
}

TEST_CASE("stage 5 keeps keys forever (its flaw)", "[e2e][stage5][flaw]") {
  World w("stage5_replay");
  CHECK(w.send("k", w.body(100)).status == 201);
  w.admin.advance_clock_ms(400LL * 24 * 3600 * 1000);   // 400 days later
  CHECK(w.send("k", w.body(100)).header("Idempotent-Replayed") == "true");
}

TEST_CASE("stage 5 answers 503 when the database stays busy and frees the key for the retry", "[e2e][stage5][busy]") {
  World w("stage5_replay");
  // Another process (this test) takes SQLite's write lock for longer than the server's 5 s busy timeout,
  // while the first request sleeps between its claim and its money. The sleep is a whole second, so a
  // loaded machine that starts this thread late still takes the lock in time; the lock is held past the
  // sleep and the busy timeout together (1 s + 5 s), so the money's transaction gives up first.
  auto first = w.send_slowly_while("k", w.body(100), 1'000, [&] {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(w.server.db_path().c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(6'600));
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  });
  CHECK(first.status == 503);
  CHECK(first.json()["type"] == "/problems/service-unavailable");
  CHECK(first.header("Retry-After") == "1");
  CHECK(w.transfers() == 0);
  auto retry = w.send("k", w.body(100));   // the claim was released: the retry runs at once
  CHECK(retry.status == 201);
  CHECK(w.transfers() == 1);
}

TEST_CASE("stage 5 refuses a colliding client's own transfer with 422 (its flaw)", "[e2e][stage5][flaw]") {
  World w("stage5_replay");
  auto bob = w.other_client("bob", 1'000);
  CHECK(w.send("order-1", w.body(100)).status == 201);
  CHECK(bob.send("order-1", 50).status == 422);
  CHECK(bob.balance() == 1'000);
}
