// class_resume.h: how a second `grader class` run skips the learners the first one graded. docs/teach/grader-for-courses.md
// "Grading a class" (resume).
//
//   if (auto row = graded_before(dir, stage, seed, command)) rows.push_back(*row);  // skipped
//   else { ClassRow row = grade_learner(...); mark_graded(dir, stage, seed, row); }
//
// OUT/<name>/done.json is written last, after every report of the learner, and atomically (a temporary
// file renamed over it), so it is there only when the rest is:
//   {"stage": 5, "seed": 1, "command": "<the --server template>", "row": <class_row.h:to_json>}
// A learner is graded before when their done.json says the same stage, seed and command. An interrupted
// run leaves no done.json for the learners it was grading, so the next run grades them again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "grader/report/class_row.h"

namespace grader {

inline constexpr const char* kDoneFile = "done.json";

// The row saved in `learner_dir`'s done.json, when it is for this stage, seed and command.
std::optional<ClassRow> graded_before(const std::string& learner_dir, int stage, std::uint64_t seed,
                                      const std::string& command);

// Writes done.json; false (and a line on stderr) if it could not.
bool mark_graded(const std::string& learner_dir, int stage, std::uint64_t seed, const ClassRow& row);

}  // namespace grader
