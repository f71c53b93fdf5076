// day.h: `grader day`: the day of requests. LAB.md "The day"; the log's grammar is in logs/README.md.
//
//   grader day generate --seed S [--intents N] [--out FILE]
//   grader day replay LOG (--stage N | --server CMD | --url URL --admin-token T) [--json FILE]
//   grader day show LOG INTENT [--record FILE]
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_day(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
