// report_command.h: `grader report`: the grader matrix and the day on every stage, written as one HTML
// page (grader/report/report_html.h). docs/teach/grader.md "The grader" (output).
//
//   grader report --html FILE [--bin-dir DIR] [--seed S] [--day LOG] [--intents N] [--jobs N]
//
// `grader report --help` (kUsage in report_command.cc) says what each option does and how long it takes.
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_report(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
