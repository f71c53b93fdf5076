// day.h: `grader day`: the day of requests. docs/teach/the-day.md "The day"; the log's grammar is in logs/README.md.
//
//   grader day generate [--seed S] [--intents N] [--out FILE]
//   grader day replay LOG (--stage N|NAME|all | --server CMD | --url URL --admin-token T) [--json FILE]
//                         [--html FILE] ...
//   grader day show LOG INTENT [--record FILE]
//
// `grader day --help` (kUsage in day.cc) lists every option.
#pragma once

#include <string>
#include <vector>

#include "grader/day/day_log.h"
#include "grader/report/report_html.h"

namespace grader {

int run_day(const std::vector<std::string>& args);  // the process exit status

// `grader report`'s day: the day replayed on every stage and wrong turn built in bin_dir, two at a time (as
// `grader day replay LOG --stage all`), its table printed on stdout; the rows for the HTML page.
DayReport replay_on_every_stage(const DayLog& day, const std::string& log, const std::string& bin_dir);

}  // namespace grader
