// wrong_turns_test.cc: the stage 2 wrong turns show their failures over real HTTP.
// (3a is in stage3_test.cc, 4a and 4b in stage4_test.cc, beside the stage they are variants of.)
#include <catch2/catch.hpp>

#include "tests/e2e/http_burst.h"
#include "tests/e2e/world.h"

using namespace lab::testing;

TEST_CASE("the select-then-insert wrong turn moves the money twice for two simultaneous retries", "[e2e][wrong-turn][burst]") {
  World w("wrong_select_then_insert");
  auto replies = burst(2, [&](int) { return w.send("same", w.body(100), {{"Lab-Delay-Ms", "200"}}); });
  CHECK(replies[0].status == 201);
  CHECK(replies[1].status == 201);
  CHECK(w.transfers() == 2);
}

TEST_CASE("the insert-or-ignore wrong turn executes every retry", "[e2e][wrong-turn]") {
  World w("wrong_insert_or_ignore");
  CHECK(w.send("k", w.body(100)).status == 201);
  CHECK(w.send("k", w.body(100)).status == 201);
  CHECK(w.transfers() == 2);
}
