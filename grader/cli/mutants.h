// mutants.h: `grader mutants`: the grader checks itself against realistic mistakes. docs/teach/grader.md "The grader"
// (mutants).
//
//   grader mutants --bin-dir build/stages [--mutants grader/mutants] [--seeds N] [--seed S] [--jobs N]
//                  [--only a,b,...]
//
// A mutant is stage 6 with one small mistake a hurried engineer makes (grader/mutants/<name>.mutant says
// which, and the anomaly that should name it; `make mutants` builds them as build/stages/mutant_<name>).
// Each is graded like the matrix's stage 6 column, once per seed. It is killed on a seed when a check
// fails, and named right when a failed check names the mutant's anomaly. The matrix proves each stage
// fails the next stage's checks; this proves the checks catch the mistakes a correct-looking server makes.
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_mutants(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
