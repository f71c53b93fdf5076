// day.h: `grader day`: the day of requests. LAB.md "The day"; the log's grammar is in logs/README.md.
//
//   grader day generate [--seed S] [--intents N] [--out FILE]
//   grader day replay LOG (--stage N|NAME|all | --server CMD | --url URL --admin-token T) [--json FILE] ...
//   grader day show LOG INTENT [--record FILE]
//
// `grader day --help` (kUsage in day.cc) lists every option.
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_day(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
