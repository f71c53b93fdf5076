// stage1_test.cc: stage 1 over real HTTP: it moves money correctly, and it duplicates every retry.
#include <catch2/catch.hpp>

#include "tests/e2e/http_burst.h"
#include "tests/e2e/stage_process.h"

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
  StageProcess server("stage1_naive");
  auto admin = server.admin();
  auto alice = admin.create_client("alice");
  auto from = admin.create_account(alice.id, 10'000);
  auto to = admin.create_account(alice.id, 0);
  auto reply = alice.transfer(from, to, 1'500, "rent");
  REQUIRE(reply.status == 201);
  CHECK(reply.json()["from_balance_after"] == 8'500);
  CHECK(alice.balance(from) == 8'500);
  CHECK(alice.balance(to) == 1'500);
}

TEST_CASE("stage 1 executes a retried transfer a second time (its flaw)", "[e2e][stage1]") {
  StageProcess server("stage1_naive");
  auto admin = server.admin();
  auto alice = admin.create_client("alice");
  auto from = admin.create_account(alice.id, 10'000);
  auto to = admin.create_account(alice.id, 0);
  CHECK(alice.transfer(from, to, 1'500, "rent").status == 201);
  CHECK(alice.transfer(from, to, 1'500, "rent").status == 201);   // the retry, same key
  CHECK(alice.balance(from) == 7'000);
  CHECK(admin.ledger().size() == 2);
}

TEST_CASE("stage 1 serves a burst of 16 simultaneous clients without losing a request", "[e2e][stage1][burst]") {
  StageProcess server("stage1_naive");
  auto admin = server.admin();
  auto alice = admin.create_client("alice");
  auto from = admin.create_account(alice.id, 100'000);
  auto to = admin.create_account(alice.id, 0);
  constexpr int kClients = 16;
  auto replies = burst(kClients, [&](int i) { return alice.transfer(from, to, 100 + i, "k" + std::to_string(i)); });
  std::int64_t sent = 0;
  for (int i = 0; i < kClients; ++i) {
    CHECK(replies[i].status == 201);
    sent += 100 + i;
  }
  CHECK(alice.balance(from) == 100'000 - sent);
  CHECK(alice.balance(to) == sent);
  CHECK(admin.ledger().size() == kClients);
}

TEST_CASE("stage 1 hides another client's account behind the same 404 as a missing one", "[e2e][stage1]") {
  StageProcess server("stage1_naive");
  auto admin = server.admin();
  auto alice = admin.create_client("alice");
  auto mallory = admin.create_client("mallory");
  auto alices = admin.create_account(alice.id, 10'000);
  auto mallorys = admin.create_account(mallory.id, 0);
  auto foreign = mallory.transfer(alices, mallorys, 100, "steal");
  auto missing = mallory.transfer(999'999, mallorys, 100, "probe");
  CHECK(foreign.status == 404);
  CHECK(missing.status == 404);
  CHECK(foreign.json()["type"] == missing.json()["type"]);
  CHECK(mallory.get("/accounts/" + std::to_string(alices)).status == 404);
  CHECK(alice.balance(alices) == 10'000);
}

TEST_CASE("stage 1 ends on Lab-Crash and keeps its data across a restart", "[e2e][stage1][crash]") {
  StageProcess server("stage1_naive");
  auto admin = server.admin();
  auto alice = admin.create_client("alice");
  auto from = admin.create_account(alice.id, 10'000);
  auto to = admin.create_account(alice.id, 0);
  auto lost = alice.transfer(from, to, 700, "k", {{"Lab-Crash", "after-money"}});
  CHECK(lost.status == 0);   // no response: the process ended after the money committed
  CHECK(server.wait_for_exit() == 86);
  server.restart();
  CHECK(alice.balance(from) == 9'300);
}
