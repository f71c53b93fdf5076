// grade.h: `grader --server ...` and `grader --url ...`: one server, the selected checks, the reports.
#pragma once

#include "grader/cli/options.h"

namespace grader {

int run_grade(const GraderOptions& options);  // the process exit status

// A seed from the operating system, for runs without --seed.

}  // namespace grader
