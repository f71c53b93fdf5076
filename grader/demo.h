// demo.h: `grader demo`: narrated scenarios, one per failure mode, against the real stage servers.
// LAB.md "The day" (the show).
//
//   grader demo                 lists the scenarios
//   grader demo NAME [--step]   runs one on the stage that has the flaw, then on the stage that fixes it
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_demo(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
