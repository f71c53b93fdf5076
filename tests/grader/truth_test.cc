// truth_test.cc: the truth table's rules (grader/record/truth.cc) on made-up findings about the table's own
// servers (stages/stage_servers.json: each row's "does").
#include "grader/record/truth.h"

#include <algorithm>

#include <catch2/catch.hpp>

using namespace grader;

namespace {

const StageServer& server(const std::string& name) {
  const StageServer* s = find_stage_server(name);
  REQUIRE(s != nullptr);
  return *s;
}

Finding keys_lost() {
  return {.anomaly = Anomaly::DoubleApply,
          .what = "keys did not survive the restart",
          .hint = "keep the keys where the money is",
          .cause = Cause::KeysNotDurable};
}

}  // namespace

TEST_CASE("truth: a cause is true only of a server that lacks its trait (T2)") {
  CHECK(untrue(server("1"), keys_lost(), 4).empty());  // stage 1 keeps no keys at all: true, and stage 2 fixes it
  const auto about_stage3 = untrue(server("3"), keys_lost(), 4);
  REQUIRE(about_stage3.size() == 2);  // stage 3 keeps its keys in SQLite (T2), and has stage 2's lesson (T1)
  CHECK(about_stage3[0].rfind("T1: credits stage 2", 0) == 0);
  CHECK(about_stage3[1] == "T2: claims keys-not-durable, but stage 3 has the trait \"durable-keys\"");
}

TEST_CASE("truth: the credited stage teaches a trait the server lacks (T1)") {
  const Finding replay{.anomaly = Anomaly::ReplayMismatch, .what = "the repeat differs from the first response"};
  CHECK(untrue(server("4"), replay, 5).empty());   // stage 5 teaches the stored replay stage 4 lacks
  CHECK(!untrue(server("5"), replay, 5).empty());  // stage 5 has it
  // Wrong turn 4b moves the money before it records the key, found by a SELECT: it lacks stage 2's UNIQUE claim,
  // so a race credited to stage 2 is true of it, though it is a wrong turn of stage 4.
  const Finding race{.anomaly = Anomaly::DoubleApply, .what = "two simultaneous copies both moved money"};
  CHECK(untrue(server("wrong_money_first"), race, 2).empty());
  CHECK(!untrue(server("wrong_completed_first"), race, 2).empty());  // 4a claims with the UNIQUE constraint
  // The contract is never the fix for a server of the table: each keeps it.
  const Finding shape{.anomaly = Anomaly::ContractShape, .what = "409 without Retry-After", .hint = "send it"};
  CHECK(untrue(server("3"), shape, 4) == std::vector<std::string>{"T1: credits the contract, which stage 3 keeps"});
}

TEST_CASE("truth: every trait a row lists, and every cause's trait, is one the table describes") {
  for (const auto& s : stage_servers())
    for (const auto& trait : s.does) CHECK_FALSE(trait.empty());
  for (Cause c : {Cause::KeysNotDurable, Cause::FingerprintUnstable, Cause::NoLeaseOnLabClock}) {
    const std::string trait(lacked_trait(c));
    CHECK(server("6").does.end() != std::find(server("6").does.begin(), server("6").does.end(), trait));
  }
}
