// class_command.h: `grader class`: a whole class of submissions graded in one command, each learner in a
// grader process of their own, a few at a time, with a summary for the class. docs/teach/grader-for-courses.md "Grading a class".
//
//   grader class --submissions DIR [--stage N] [--seed S] [--jobs N] [--out DIR] [--fresh]
//   grader class --roster FILE ...
//
// Who is in the class: grader/cli/class_roster.h. One learner's grading: grader/cli/class_learner.h. Their
// row: grader/report/class_row.h. Skipping the learners graded before: grader/cli/class_resume.h. The
// summary: grader/report/class_summary.h.
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_class(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
