// class_row_test.cc: a learner's row of `grader class` (grader/report/class_row.h) read from results.json,
// and its CSV (grader/report/class_summary.h). tests/grader/check_class.py runs the whole command.
#include <catch2/catch.hpp>

#include "grader/report/class_row.h"
#include "grader/report/class_summary.h"

using namespace grader;

namespace {

// A results.json in the shape grader/report/results_json.cc writes, with the tests given.
// (One test alone is wrapped in json::array: a braced list of one json is that json, not an array of it.)
std::string results_with(const nlohmann::json& tests) {
  return nlohmann::json{{"score", 0}, {"max_score", 0}, {"tests", tests}}.dump();
}

nlohmann::json test(const std::string& number, const std::string& name, const std::string& status, int max_score,
                    const std::string& output = "passed") {
  return {{"number", number}, {"name", name + ": a title"}, {"status", status}, {"max_score", max_score},
          {"output", output}};
}

}  // namespace

TEST_CASE("class row: the first failed check and its anomaly are the row's, each stage is its checks") {
  ClassRow row;
  REQUIRE(read_results(results_with({test("0.1", "stage0.shape", "passed", 1), test("1.1", "stage1.a", "passed", 1),
                                     test("2.1", "stage2.b", "failed", 1, "double-apply: intent i2 moved money twice"),
                                     test("2.2", "stage2.c", "failed", 1, "lost-write: ..."),
                                     test("3.1", "stage3.d", "passed", 1)}),
                       3, row));
  CHECK(row.verdict == "fail");
  CHECK(row.first_failure == "stage2.b");
  CHECK(row.anomaly == "double-apply");
  REQUIRE(row.stages.size() == 4);
  CHECK(row.stages[0] == StageResult::Pass);
  CHECK(row.stages[1] == StageResult::Pass);
  CHECK(row.stages[2] == StageResult::Fail);
  CHECK(row.stages[3] == StageResult::Pass);
}

TEST_CASE("class row: a skipped check (max_score 0) neither passes nor fails its stage") {
  ClassRow row;
  REQUIRE(read_results(results_with({test("0.1", "stage0.shape", "failed", 1, "contract-shape: no id"),
                                     test("1.1", "stage1.a", "failed", 0, "not run: the contract failed")}),
                       1, row));
  CHECK(row.first_failure == "stage0.shape");
  CHECK(row.anomaly == "contract-shape");
  CHECK(row.stages[1] == StageResult::NotRun);
}

TEST_CASE("class row: a failure that opens with no anomaly's name has no anomaly") {
  ClassRow row;
  REQUIRE(read_results(results_with(nlohmann::json::array({test("1.1", "stage1.a", "failed", 1, "hint: look at the ledger")})), 1, row));
  CHECK(row.first_failure == "stage1.a");
  CHECK(row.anomaly.empty());
}

TEST_CASE("class row: a results.json without checks, or not one, is no verdict") {
  ClassRow row;
  CHECK_FALSE(read_results(results_with(nlohmann::json::array()), 6, row));
  CHECK(row.reason == "its results.json lists no check");
  CHECK_FALSE(read_results("not json", 6, row));
  CHECK(row.verdict == "error");
}

TEST_CASE("class row: done.json keeps the row as it was") {
  ClassRow row{.name = "alice", .command = "./server", .verdict = "fail",
               .stages = {StageResult::Pass, StageResult::Fail, StageResult::NotRun},
               .first_failure = "stage1.a", .anomaly = "double-apply", .reason = "", .seconds = 12.5};
  ClassRow back = row_from_json(to_json(row));
  CHECK(back.name == "alice");
  CHECK(back.stages == row.stages);
  CHECK(back.first_failure == "stage1.a");
  CHECK(back.seconds == 12.5);
}

TEST_CASE("class summary: the CSV quotes commas and newlines and defuses a formula") {
  ClassSummary summary{.stage = 1,
                       .rows = {ClassRow{.name = "=cmd", .verdict = "error", .reason = "line one, and\nline two"}}};
  const std::string csv = class_csv(summary);
  CHECK(csv.starts_with("learner,verdict,contract,stage1,first_failing_check,anomaly,seconds,resumed,reason,report\n"));
  CHECK(csv.find("'=cmd,error,not-run,not-run,") != std::string::npos);
  CHECK(csv.find("\"line one, and\nline two\"") != std::string::npos);
}
