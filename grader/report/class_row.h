// class_row.h: one learner's row of a class summary (`grader class`), and how it is read from the
// results.json their grading wrote (results_json.h). docs/teach/grader-for-courses.md "Grading a class".
//
//   ClassRow row{.name = "alice", .command = "..."};
//   read_results(results_json_text, 5, row);   // the stages, the first failing check, its anomaly
//   nlohmann::json saved = to_json(row);        // done.json keeps it; from_json reads it back
//
// How a stage is read from results.json: each test's "number" is "<stage>.<n>" and its "name" is
// "<check>: <title>"; a test with max_score 0 was skipped. A stage passed when it has a counted test and
// every counted test of it passed. The anomaly is the first line of the first failing test's "output" up
// to its ':', when that is an anomaly's name (grader/record/anomaly.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace grader {

enum class StageResult { Pass, Fail, NotRun };

struct ClassRow {
  std::string name = "";
  std::string command = "";  // the --server template it was graded with
  // pass: every check passed; fail: a check failed; error: no verdict (did not start, crashed, timed out).
  std::string verdict = "error";
  std::vector<StageResult> stages = {};  // [0] the contract, [k] stage k, up to the graded stage
  std::string first_failure = "";        // the first failed check's name ("stage3.changed-amount")
  std::string anomaly = "";              // its first finding's anomaly ("fingerprint-ignored"), if named
  std::string reason = "";               // an error's cause in a line or a few
  double seconds = 0;
  bool resumed = false;  // read from done.json, not graded in this run (not saved)
  std::vector<std::string> reports = {};  // the summary's links: its report files that exist (not saved)
};

// Fills the row's stages, verdict and first failure from a results.json's text; false (and the row's
// reason says why) when the text is not a results.json or lists no test (the server did not start).
bool read_results(const std::string& results_json_text, int stage, ClassRow& row);

nlohmann::json to_json(const ClassRow& row);
ClassRow row_from_json(const nlohmann::json& saved);  // throws nlohmann::json::exception if it is not one

const char* word(StageResult result);  // "pass", "fail", "not-run"

}  // namespace grader
