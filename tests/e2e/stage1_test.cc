// stage1_test.cc: stage 1 over real HTTP: it moves money correctly, and it duplicates every retry.
#include <catch2/catch.hpp>

#include "tests/e2e/http_burst.h"
#include "tests/e2e/world.h"

using namespace lab::testing;

TEST_CASE("stage 1 answers healthz and refuses a request without a token", "[e2e][stage1]") {
  StageProcess server("stage1_naive");
  LabClient anonymous(server.port(), "");
  CHECK(anonymous.get("/healthz").status == 200);
  auto reply = anonymous.post("/transfers", "{}");
  CHECK(reply.status == 401);
  CHECK(reply.header("Content-Type") == "application/problem+json");
  CHECK(reply.json()["type"] == "/problems/unauthorized");
}

TEST_CASE("stage 1 moves the amount of a transfer once per request", "[e2e][stage1]") {
  World w("stage1_naive");
  auto reply = w.send("rent", w.body(1'500));
  REQUIRE(reply.status == 201);
  CHECK(reply.json()["from_balance_after"] == 8'500);
  CHECK(w.alice.balance(w.from) == 8'500);
  CHECK(w.alice.balance(w.to) == 1'500);
}

TEST_CASE("stage 1 executes a retried transfer a second time (its flaw)", "[e2e][stage1]") {
  World w("stage1_naive");
  CHECK(w.send("rent", w.body(1'500)).status == 201);
  CHECK(w.send("rent", w.body(1'500)).status == 201);   // the retry, same key
  CHECK(w.alice.balance(w.from) == 7'000);
  CHECK(w.transfers() == 2);
}

TEST_CASE("stage 1 serves a burst of 16 simultaneous clients without losing a request", "[e2e][stage1][burst]") {
  World w("stage1_naive", {}, 100'000);
  constexpr int kClients = 16;
  auto replies = burst(kClients, [&](int i) { return w.send("k" + std::to_string(i), w.body(100 + i)); });
  std::int64_t sent = 0;
  for (int i = 0; i < kClients; ++i) {
    CHECK(replies[i].status == 201);
    sent += 100 + i;
  }
  CHECK(w.alice.balance(w.from) == 100'000 - sent);
  CHECK(w.alice.balance(w.to) == sent);
  CHECK(w.transfers() == kClients);
}

TEST_CASE("stage 1 hides another client's account behind the same 404 as a missing one", "[e2e][stage1]") {
  World w("stage1_naive");
  auto mallory = w.other_client("mallory", 0);
  auto foreign = mallory.client.transfer(w.from, mallory.to, 100, "steal");
  auto missing = mallory.client.transfer(999'999, mallory.to, 100, "probe");
  CHECK(foreign.status == 404);
  CHECK(missing.status == 404);
  CHECK(foreign.json()["type"] == missing.json()["type"]);
  CHECK(mallory.client.get("/accounts/" + std::to_string(w.from)).status == 404);
  CHECK(w.alice.balance(w.from) == 10'000);
}

TEST_CASE("stage 1 ends on Lab-Crash and keeps its data across a restart", "[e2e][stage1][crash]") {
  World w("stage1_naive");
  w.crash_and_restart("k", w.body(700), "after-money");   // no response: the process ended after the money
  CHECK(w.alice.balance(w.from) == 9'300);
}
