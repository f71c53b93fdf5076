// explore_test.cc: the pure parts of `grader explore` (grader/explore/): the generator of histories
// (history.h: the same seed gives the same history, each stage gets only the steps its contract speaks of)
// and the shrinker (shrink.h), driven by made-up predicates instead of a server. The runs against the real
// stage servers are the "grader explore: ..." tests in tests/system/CMakeLists.txt.
#include <catch2/catch.hpp>
#include <set>

#include "grader/explore/history.h"
#include "grader/explore/shrink.h"

// Inside the room's namespace: the grader_tests unity build also sees grader::History (grader/record/history.h).
namespace grader::explore {
namespace {

Step send(const std::string& key, std::int64_t amount = 1500) {
  Step s;
  s.intent.key = key;
  s.intent.amount = amount;
  return s;
}

bool has_key(const History& h, const std::string& key) {
  for (const Step& s : h)
    if (s.intent.key == key) return true;
  return false;
}

std::set<StepKind> kinds_at(int stage) {
  std::set<StepKind> kinds;
  for (std::uint64_t seed = 1; seed <= 60; ++seed)
    for (const Step& s : generate(seed, stage, 12)) kinds.insert(s.kind);
  return kinds;
}

}  // namespace

TEST_CASE("explore: generate gives the same history for the same seed, another for another") {
  for (int stage = 1; stage <= 6; ++stage) {
    CHECK(generate(11, stage, 15) == generate(11, stage, 15));
    CHECK(generate(11, stage, 15) != generate(12, stage, 15));
    CHECK(generate(11, stage, 15).size() == 15);
  }
}

TEST_CASE("explore: generate draws only steps the stage's contract speaks of") {
  for (int stage = 1; stage <= 6; ++stage) {
    int highest = 1;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      History h = generate(seed, stage, 12);
      for (std::size_t i = 0; i < h.size(); ++i) {
        INFO("stage " << stage << ", seed " << seed << ", step " << i + 1 << ": " << describe(h, i));
        CHECK(stage_needed(h, i) <= stage);
        highest = std::max(highest, stage_needed(h, i));
      }
    }
    CHECK(highest == (stage == 5 ? 4 : stage));  // the stage's own steps do come (stage 5's lesson is in answers)
  }
  CHECK(kinds_at(1) == std::set<StepKind>{StepKind::Send, StepKind::Crash, StepKind::Busy, StepKind::Balance});
  CHECK(kinds_at(3).count(StepKind::InFlight) == 1);
  CHECK(kinds_at(3).count(StepKind::Clock) == 0);
  CHECK(kinds_at(6).size() == 6);
}

TEST_CASE("explore: stage_needed reads what a step is to the earlier use of its key") {
  History h{send("a"), send("a"), send("a", 1600), send("b")};
  Step respelled = send("b");
  respelled.intent.respelled = true;
  Step other_client = send("b");
  other_client.intent.client = 1;
  other_client.intent.from = 2;
  h.push_back(respelled);
  h.push_back(other_client);
  CHECK(stage_needed(h, 0) == 1);
  CHECK(stage_needed(h, 1) == 2);  // the same request again: the key table
  CHECK(stage_needed(h, 2) == 3);  // another amount under the key: the fingerprint
  CHECK(stage_needed(h, 3) == 1);
  CHECK(stage_needed(h, 4) == 3);  // the same JSON written differently: the canonical fingerprint
  CHECK(stage_needed(h, 5) == 6);  // another client's key: the scope
  CHECK(describe(h, 1).find("the request of step 1 again") != std::string::npos);
  CHECK(requests_in(h) == 6);
}

TEST_CASE("explore: shrink finds the two steps that fail together, in order") {
  History h;
  for (int i = 1; i <= 10; ++i) h.push_back(send("k" + std::to_string(i)));
  // Fails when k3 comes before k7 (the others are noise), as a repeat that needs its first request.
  auto fails = [](const History& c) {
    int three = -1, seven = -1;
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c[i].intent.key == "k3") three = static_cast<int>(i);
      if (c[i].intent.key == "k7") seven = static_cast<int>(i);
    }
    return three >= 0 && seven > three;
  };
  Shrunk s = shrink(h, fails);
  CHECK(s.history == History{send("k3", 100), send("k7", 100)});  // and their amounts made the smallest
  CHECK(s.tries > 0);
  CHECK(s.tries <= kMaxShrinkTries);
}

TEST_CASE("explore: shrink makes the remaining steps simpler while they still fail") {
  Step slow = send("k1", 2300);
  slow.kind = StepKind::InFlight;
  slow.takeover = true;
  slow.intent.respelled = true;
  History h{send("k0"), slow, send("k2")};
  // Only the key matters: the shortest is k1 alone, sent plainly, with the smallest amount.
  Shrunk s = shrink(h, [](const History& c) { return has_key(c, "k1"); });
  REQUIRE(s.history.size() == 1);
  CHECK(s.history[0] == send("k1", 100));
  // A failure that needs the overlap keeps it (and the takeover).
  Shrunk overlap = shrink(h, [](const History& c) {
    for (const Step& t : c)
      if (t.kind == StepKind::InFlight && t.takeover) return true;
    return false;
  });
  REQUIRE(overlap.history.size() == 1);
  CHECK(overlap.history[0].kind == StepKind::InFlight);
  CHECK(overlap.history[0].takeover);
  CHECK_FALSE(overlap.history[0].intent.respelled);
}

TEST_CASE("explore: shrink stops at its budget of tries and keeps a history that failed") {
  History h;
  for (int i = 1; i <= 40; ++i) h.push_back(send("k" + std::to_string(i)));
  int calls = 0;
  Shrunk s = shrink(h, [&](const History& c) { ++calls; return has_key(c, "k5") && has_key(c, "k30"); }, 5);
  CHECK(calls == 5);
  CHECK(s.tries == 5);
  CHECK(has_key(s.history, "k5"));
  CHECK(has_key(s.history, "k30"));
}

TEST_CASE("explore: a history that fails empty shrinks to nothing") {
  Shrunk s = shrink(History{send("k1"), send("k2")}, [](const History&) { return true; });
  CHECK(s.history.empty());
}

}  // namespace grader::explore
