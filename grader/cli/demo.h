// demo.h: `grader demo`: narrated scenarios, one per failure mode, against the real stage servers.
// docs/teach/the-day.md "The day" (the show).
//
//   grader demo                                lists the scenarios
//   grader demo NAME [--step] [--bin-dir DIR]  runs one on the stage that has the flaw, then on the one that
//                                              fixes it; `grader demo all` runs every one in turn
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_demo(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
