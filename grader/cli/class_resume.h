// class_resume.h: how a second `grader class` run skips the learners the first one graded. docs/teach/grader-for-courses.md
// "Grading a class" (resume).
//
//   if (auto row = graded_before(dir, {stage, seed, histories}, command)) rows.push_back(*row);  // skipped
//   else { ClassRow row = grade_learner(...); mark_graded(dir, {stage, seed, histories}, row); }
//
// OUT/<name>/done.json is written last, after every report of the learner, and atomically (a temporary
// file renamed over it), so it is there only when the rest is:
//   {"stage": 5, "seed": 1, "histories": 10, "command": "<the --server template>", "row": <class_row.h:to_json>}
// A learner is graded before when their done.json says the same stage, seed, histories (the random histories
// of each stageN.conformance: more of them may find what fewer did not) and command. An interrupted
// run leaves no done.json for the learners it was grading, so the next run grades them again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "grader/report/class_row.h"

namespace grader {

inline constexpr const char* kDoneFile = "done.json";

// What a learner was graded with: the same again is graded before.
struct GradedWith {
  int stage = 0;
  std::uint64_t seed = 0;
  int histories = 0;  // --histories, or the grader's default (grader/checks/check.h kConformanceHistories)
};

// The row saved in `learner_dir`'s done.json, when it is for this stage, seed, histories and command.
std::optional<ClassRow> graded_before(const std::string& learner_dir, const GradedWith& with, const std::string& command);

// Writes done.json; false (and a line on stderr) if it could not.
bool mark_graded(const std::string& learner_dir, const GradedWith& with, const ClassRow& row);

}  // namespace grader
