// matrix.h: `grader matrix --bin-dir <build>/stages`: the grader checks itself. LAB.md "The grader" (matrix).
//
// Every reference stage and every wrong-turn variant present in bin-dir is graded with every check. The
// result must be a staircase:
//   - stage k passes every check of stages 0..k, and fails at least one check of each later stage;
//   - each wrong turn fails the check named for it (its one mistake is caught where it is taught).
// Missing binaries are reported "not built" and the staircase is judged on those present.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "grader/options.h"

namespace grader {

struct Subject {
  std::string binary;                    // file name in bin-dir
  std::string label;                     // column heading
  int stage = 0;                         // the stage it is (or the stage it got wrong)
  std::optional<std::string> must_fail;  // wrong turns: the check named for the mistake
};

const std::vector<Subject>& matrix_subjects();
// The server flags every subject is started with (non-default --lease and --key-ttl, so the policy check
// sees the values in force); the binary's path goes in front.
std::string matrix_server_flags();
int run_matrix(const GraderOptions& options);  // the process exit status

}  // namespace grader
