// stage2_test.cc: stage 2 over real HTTP. The UNIQUE key stops duplicates; a changed body, an in-flight
// repeat and a crash are still answered "already processed" (its kept flaws).
#include <catch2/catch.hpp>

#include "tests/e2e/http_burst.h"
#include "tests/e2e/world.h"

using namespace lab::testing;

TEST_CASE("stage 2 refuses a transfer without an Idempotency-Key", "[e2e][stage2]") {
  World w("stage2_unique_key");
  auto reply = w.alice.post("/transfers", w.body(100));
  CHECK(reply.status == 400);
  CHECK(reply.json()["type"] == "/problems/idempotency-key-missing");
  CHECK(w.transfers() == 0);
}

TEST_CASE("stage 2 moves the money of a retried request once", "[e2e][stage2]") {
  World w("stage2_unique_key");
  CHECK(w.send("rent", w.body(1'500)).status == 201);
  auto retry = w.send("rent", w.body(1'500));
  CHECK(retry.status == 200);
  CHECK(retry.json()["status"] == "already processed");
  CHECK(w.alice.balance(w.from) == 8'500);
  CHECK(w.transfers() == 1);
}

TEST_CASE("stage 2 moves the money once for 16 simultaneous identical requests", "[e2e][stage2][burst]") {
  World w("stage2_unique_key");
  auto replies = burst(16, [&](int) { return w.send("same", w.body(100)); });
  int created = 0;
  for (auto& r : replies) created += r.status == 201;
  CHECK(created == 1);
  CHECK(w.transfers() == 1);
  CHECK(w.alice.balance(w.from) == 9'900);
}

TEST_CASE("stage 2 does not burn a key on a 400", "[e2e][stage2]") {
  World w("stage2_unique_key");
  CHECK(w.send("k", R"({"from_account":1,"amount":"oops"})").status == 400);
  CHECK(w.send("k", w.body(100)).status == 201);
}

TEST_CASE("stage 2 answers a changed amount under the same key with done and moves nothing (its flaw)", "[e2e][stage2][flaw]") {
  World w("stage2_unique_key");
  CHECK(w.send("k", w.body(200)).status == 201);
  auto changed = w.send("k", w.body(300));
  CHECK(changed.status == 200);   // the clerk corrected 200 to 300; the server says "done"
  CHECK(w.alice.balance(w.from) == 9'800);
}

TEST_CASE("stage 2 tells an in-flight repeat done before anything is done (its flaw)", "[e2e][stage2][flaw]") {
  World w("stage2_unique_key");
  auto seen = w.repeat_while_first_runs("k", w.body(100), 400);
  CHECK(seen.repeat.status == 200);
  CHECK(seen.transfers_when_answered == 0);   // "already processed", but nothing was in the ledger yet
}

TEST_CASE("stage 2 leaves a key that says done after a crash before the money (its flaw)", "[e2e][stage2][flaw][crash]") {
  World w("stage2_unique_key");
  w.crash_and_restart("k", w.body(100), "before-money");
  CHECK(w.send("k", w.body(100)).status == 200);   // "already processed" ...
  CHECK(w.transfers() == 0);                       // ... a transfer that never happened
}

TEST_CASE("stage 2 keys are global so a colliding client is told done (its flaw)", "[e2e][stage2][flaw]") {
  World w("stage2_unique_key");
  auto bob = w.other_client("bob", 1'000);
  CHECK(w.send("order-1", w.body(100)).status == 201);
  CHECK(bob.send("order-1", 50).status == 200);
  CHECK(bob.balance() == 1'000);   // bob's own transfer never ran
}
