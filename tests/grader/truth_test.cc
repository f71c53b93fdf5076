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

TEST_CASE("truth: a trait is taught by the first stage whose server has it") {
  CHECK(lesson_teaching("durable-keys") == 2);   // stage 1 keeps no keys
  CHECK(lesson_teaching("canonical-fingerprint") == 3);
  CHECK(lesson_teaching("lease") == 4);
  CHECK(lesson_teaching("stored-replay") == 5);
  CHECK(lesson_teaching("key-ttl") == 6);
  CHECK(lesson_teaching("no-such-trait") == 0);
}

TEST_CASE("truth: every trait a row lists, and every cause's trait, is one the table describes") {
  for (const auto& s : stage_servers())
    for (const auto& trait : s.does) CHECK_FALSE(trait.empty());
  for (Cause c : {Cause::KeysNotDurable, Cause::FingerprintUnstable, Cause::NoLeaseOnLabClock}) {
    const std::string trait(lacked_trait(c));
    CHECK(server("6").does.end() != std::find(server("6").does.begin(), server("6").does.end(), trait));
  }
}

TEST_CASE("truth: a mutant's description is stage 6's row minus what it lacks, the contract among them") {
  const Finding shape{.anomaly = Anomaly::ContractShape, .what = "409 without Retry-After", .hint = "send it"};
  // A mutant whose flaw is the contract (no Retry-After) may be credited the contract; one that keeps it may not.
  const StageServer no_retry_after = lacking(server("6"), {kContractTrait}, "mutant_no-retry-after");
  CHECK(untrue(no_retry_after, shape, 6).empty());
  const StageServer no_takeover = lacking(server("6"), {"lease"}, "mutant_no-takeover");
  CHECK(untrue(no_takeover, shape, 6) ==
        std::vector<std::string>{"T1: credits the contract, which mutant_no-takeover keeps"});
  // The rest of T1 and T2 as for the table's rows: no-takeover lacks stage 4's lease, not stage 5's replay.
  const Finding stuck{.anomaly = Anomaly::StuckKey, .what = "409 in progress after the lease"};
  CHECK(untrue(no_takeover, stuck, 4).empty());
  CHECK(untrue(no_retry_after, stuck, 4).size() == 1);
  const Finding replay{.anomaly = Anomaly::ReplayMismatch, .what = "the repeat differs from the first response"};
  CHECK(untrue(no_takeover, replay, 5).size() == 1);
  const Finding clock{.anomaly = Anomaly::StuckKey, .what = "a lease of its own", .cause = Cause::NoLeaseOnLabClock};
  CHECK(untrue(no_takeover, clock, 4).empty());
  CHECK(untrue(no_retry_after, clock, 4).size() == 2);  // it has the lease (T2), and stage 4's every lesson (T1)
  // The table's own stage 6 keeps the contract without listing it.
  CHECK(untrue(server("6"), shape, 6).size() == 1);
  CHECK(std::count(no_takeover.does.begin(), no_takeover.does.end(), "lease") == 0);
  CHECK(find_stage_server(no_takeover.binary) == nullptr);
}
