// explore.h: `grader explore`: random histories of a client's steps against a server, every answer judged
// by the executable model of the contract, the first refused history shrunk to the shortest that still
// fails (issue 51). docs/teach/grader-checks-itself.md "Explore: random histories judged by the model".
//
//   grader explore --stage N [--server CMD | --bin-dir DIR] [--seed S] [--histories K] [--length L]
//
// The engine is grader/explore/ (history.h, runner.h, shrink.h); this file is the command line and the output.
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_explore(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
