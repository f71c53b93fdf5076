// hardening_test.cc: answers found wrong in a security and reliability review, each pinned by a test so it
// stays fixed. Every stage shares the code concerned (common/), so most tests use one stage and say why.
#include <catch2/catch.hpp>

#include "common/money_request.h"
#include "tests/e2e/world.h"

using namespace lab::testing;

// Balances are capped at 2^53 - 1 (kMaxMinorUnits). Before the cap was checked, a 1-cent transfer to a full
// account answered 201 and left it at 2^53, past what a JSON reader holds exactly.
TEST_CASE("a transfer to a full account is refused with 422 balance-limit, stored and replayed", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  const std::int64_t full = w.admin.create_account(w.alice.id, lab::kMaxMinorUnits);
  auto first = w.alice.transfer(w.from, full, 1, "to-full");
  CHECK(first.status == 422);
  CHECK(first.header("Content-Type") == "application/problem+json");
  CHECK(first.json()["type"] == "/problems/balance-limit");
  CHECK(w.alice.balance(full) == lab::kMaxMinorUnits);
  CHECK(w.alice.balance(w.from) == 10'000);
  CHECK(w.transfers() == 0);
  // The bank's refusal is the key's outcome, like a 402: the repeat gets the same bytes, replayed.
  auto repeat = w.alice.transfer(w.from, full, 1, "to-full");
  CHECK(repeat.status == 422);
  CHECK(repeat.body == first.body);
  CHECK(repeat.header("Idempotent-Replayed") == "true");
  // And the published policy says so.
  auto policy = w.alice.get("/idempotency-policy").json();
  CHECK(std::find(policy["stored_statuses"].begin(), policy["stored_statuses"].end(), 422) !=
        policy["stored_statuses"].end());
}
