// matrix.h: `grader matrix --bin-dir <build>/stages`: the grader checks itself. docs/teach/grader.md "The grader" (matrix).
//
// Every reference stage and every wrong-turn variant present in bin-dir is graded with every check. The
// result must be a staircase:
//   - stage k passes every check of stages 0..k, and fails at least one check of each later stage;
//   - each wrong turn fails the check named for it (its one mistake is caught where it is taught);
//   - every finding is true of the server it was made about (the truth table, grader/record/truth.h).
// Missing binaries are reported "not built" and the staircase is judged on those present. With --html FILE
// the matrix is also written as a page, each failure with its timeline (grader/report/report_html.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "grader/base/stage_binaries.h"
#include "grader/cli/options.h"
#include "grader/report/report_html.h"

namespace grader {

// Every subject built in bin_dir graded with the selected checks, `jobs` servers at a time (a progress line
// each on stdout), and the staircase judged. Shared by `grader matrix` and `grader report`.
struct MatrixRun {
  std::vector<GradedServer> servers;  // one per subject, in stage_servers() order (not built: built false)
  std::vector<std::string> problems;  // the staircase's broken rules; empty: it holds
  double seconds = 0;
};
MatrixRun grade_matrix(const std::vector<Check>& checks, const std::vector<const Check*>& selected,
                       const std::string& bin_dir, std::uint64_t seed, int jobs,
                       int histories = kConformanceHistoriesWhenMany);  // per stageN.conformance, 0: none
// The server flags every subject is started with (non-default --lease and --key-ttl, so the policy check
// sees the values in force); the binary's path goes in front.
std::string matrix_server_flags();
int run_matrix(const GraderOptions& options);  // the process exit status

}  // namespace grader
