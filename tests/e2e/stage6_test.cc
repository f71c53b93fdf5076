// stage6_test.cc: stage 6 over real HTTP. Keys are scoped by (client, endpoint, key) and expire after
// --key-ttl on the lab clock; the policy is published.
#include <catch2/catch.hpp>

#include <thread>

#include "tests/e2e/world.h"

using namespace lab::testing;

TEST_CASE("stage 6 gives another client with the same key and body its own outcome", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  auto first = w.send("order-7", w.body(100));
  auto mallory = w.admin.create_client("mallory");
  auto own = w.send_as(mallory, "order-7", w.body(100));
  CHECK(own.status == 404);   // not mallory's account: her own outcome, not alice's response
  CHECK(own.body != first.body);
}

TEST_CASE("stage 6 executes another client's request with a colliding key", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  auto bob = w.other_client("bob", 1'000);
  CHECK(w.send("order-1", w.body(100)).status == 201);
  CHECK(bob.send("order-1", 50).status == 201);
  CHECK(bob.balance() == 950);
}

TEST_CASE("stage 6 treats the same key on transfers and payouts as two requests", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  CHECK(w.send("k", w.body(100)).status == 201);
  auto payout = w.alice.post("/payouts", nlohmann::json{{"from_account", w.from}, {"amount", 100}, {"currency", "USD"},
                                                        {"destination", "IBAN DE89"}}.dump(),
                             with_idempotency_key("k"));
  CHECK(payout.status == 201);
  CHECK(w.alice.balance(w.from) == 9'800);
}

TEST_CASE("stage 6 replays before the TTL and executes again after it", "[e2e][stage6]") {
  World w("stage6_scope_ttl", {"--key-ttl", "3600"});
  CHECK(w.send("k", w.body(100)).status == 201);
  w.admin.advance_clock_ms(3'599'000);
  CHECK(w.send("k", w.body(100)).header("Idempotent-Replayed") == "true");
  w.admin.advance_clock_ms(2'000);
  auto after = w.send("k", w.body(100));
  CHECK(after.status == 201);
  CHECK(after.header("Idempotent-Replayed").empty());
  CHECK(w.transfers() == 2);
}

TEST_CASE("stage 6 sweeps expired keys out of the table", "[e2e][stage6]") {
  World w("stage6_scope_ttl", {"--key-ttl", "60"});
  for (int i = 0; i < 5; ++i) CHECK(w.send("k" + std::to_string(i), w.body(10)).status == 201);
  CHECK(w.server.key_rows() == 5);
  w.admin.advance_clock_ms(61'000);
  std::int64_t rows = -1;
  for (int i = 0; i < 50 && rows != 0; ++i) {   // the sweeper runs every second
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rows = w.server.key_rows();
  }
  CHECK(rows == 0);
}

TEST_CASE("stage 6 publishes the policy it follows", "[e2e][stage6]") {
  World w("stage6_scope_ttl", {"--key-ttl", "7200", "--lease", "15"});
  auto policy = w.alice.get("/idempotency-policy").json();
  CHECK(policy["key_ttl_seconds"] == 7200);
  CHECK(policy["lease_seconds"] == 15);
  CHECK(policy["scope"] == nlohmann::json::array({"client", "endpoint", "key"}));
  CHECK(policy["replay_header"] == "Idempotent-Replayed");
}

TEST_CASE("stage 6 does not let a request that outlived its key complete the key's next life", "[e2e][stage6]") {
  World w("stage6_scope_ttl", {"--key-ttl", "60"});
  Reply next_life;
  auto slow_reply = w.send_slowly_while("k", w.body(100), 600, [&] {
    w.admin.advance_clock_ms(61'000);   // past the key's TTL and the slow claim's lease
    // The same key, now a new request, itself slow: the first one wakes up while this one holds the key.
    next_life = w.send("k", w.body(999), {{"Lab-Delay-Ms", "900"}});
  });
  CHECK(next_life.status == 201);
  CHECK(slow_reply.status == 409);    // its row is gone: it must not complete the new one
  CHECK(w.transfers() == 1);
  CHECK(w.alice.balance(w.from) == 10'000 - 999);
  auto repeat = w.send("k", w.body(999));
  CHECK(repeat.body == next_life.body);
}

TEST_CASE("stage 6 keeps an expired key while its first request still holds the lease", "[e2e][stage6]") {
  World w("stage6_scope_ttl", {"--key-ttl", "1"});
  w.send_slowly_while("k", w.body(100), 500, [&] {
    w.admin.advance_clock_ms(2'000);   // past the TTL, within the 30 s lease
    CHECK(w.send("k", w.body(100)).status == 409);
  });
  CHECK(w.transfers() == 1);
}
