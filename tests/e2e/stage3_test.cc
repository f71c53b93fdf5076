// stage3_test.cc: stage 3 over real HTTP. The canonical fingerprint refuses a changed body with 422 and
// recognizes the same body in other bytes; the in-flight and crash lies remain (its kept flaws).
#include <catch2/catch.hpp>

#include "tests/e2e/world.h"

using namespace lab::testing;

TEST_CASE("stage 3 refuses a changed amount under the same key with 422 and moves nothing", "[e2e][stage3]") {
  World w("stage3_fingerprint");
  CHECK(w.send("k", w.body(200)).status == 201);
  auto changed = w.send("k", w.body(300));
  CHECK(changed.status == 422);
  CHECK(changed.header("Content-Type") == "application/problem+json");
  CHECK(changed.json()["type"] == "/problems/idempotency-key-reused");
  CHECK(w.alice.balance(w.from) == 9'800);
  CHECK(w.transfers() == 1);
}

TEST_CASE("stage 3 treats the same body reordered and re-spaced and re-escaped as the same request", "[e2e][stage3]") {
  World w("stage3_fingerprint");
  std::string f = std::to_string(w.from), t = std::to_string(w.to);
  CHECK(w.send("k", R"({"from_account":)" + f + R"(,"to_account":)" + t +
                        R"(,"amount":100,"currency":"USD","memo":"caf\u00e9 a\/b"})").status == 201);
  auto same = w.send("k", "{ \"memo\" : \"caf\xc3\xa9 a/b\",\n \"currency\":\"USD\", \"amount\": 100, \"to_account\": " + t +
                             ", \"from_account\": " + f + " }");
  CHECK(same.status == 200);
  CHECK(w.transfers() == 1);
}

TEST_CASE("stage 3 refuses duplicate member names with 400", "[e2e][stage3]") {
  World w("stage3_fingerprint");
  auto reply = w.send("k", R"({"from_account":1,"to_account":2,"amount":1,"amount":9000,"currency":"USD"})");
  CHECK(reply.status == 400);
  CHECK(reply.json()["type"] == "/problems/json-duplicate-member");
}

TEST_CASE("stage 3 still tells an in-flight repeat done before anything is done (its flaw)", "[e2e][stage3][flaw]") {
  World w("stage3_fingerprint");
  auto seen = w.repeat_while_first_runs("k", w.body(100), 400);
  CHECK(seen.repeat.status == 200);
  CHECK(seen.transfers_when_answered == 0);
}

TEST_CASE("stage 3 still leaves a key that says done after a crash before the money (its flaw)", "[e2e][stage3][flaw][crash]") {
  World w("stage3_fingerprint");
  w.crash_and_restart("k", w.body(100), "before-money");
  CHECK(w.send("k", w.body(100)).status == 200);
  CHECK(w.transfers() == 0);
}

TEST_CASE("the raw-fingerprint wrong turn refuses a reordered retry with 422", "[e2e][wrong-turn]") {
  World w("wrong_raw_fingerprint");
  std::string f = std::to_string(w.from), t = std::to_string(w.to);
  CHECK(w.send("k", R"({"from_account":)" + f + R"(,"to_account":)" + t + R"(,"amount":100,"currency":"USD"})").status == 201);
  CHECK(w.send("k", R"({"to_account":)" + t + R"(,"from_account":)" + f + R"(,"amount":100,"currency":"USD"})").status == 422);
}

TEST_CASE("stage 3 keys are global so a colliding client gets 422 and learns the key exists (its flaw)", "[e2e][stage3][flaw]") {
  World w("stage3_fingerprint");
  auto bob = w.other_client("bob", 1'000);
  CHECK(w.send("order-1", w.body(100)).status == 201);
  CHECK(bob.send("order-1", 50).status == 422);   // bob now knows someone used "order-1"
  CHECK(bob.balance() == 1'000);                  // and his own transfer never ran
}
