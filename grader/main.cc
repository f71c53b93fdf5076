// main.cc: the grader's entry point, a table of contents. LAB.md "The grader".
//
//   options.cc        the command line
//   grade.cc          one server: start it (server_process.cc, target.cc), run the checks (runner.cc)
//   checks_*.cc       the checks, stage by stage; check_run.cc is what they send and record with
//   wire.cc           HTTP on raw sockets; history.cc the record of every attempt; audit.cc the verdicts
//   report.cc, results_json.cc, junit_xml.cc   what people and CI systems read
//   report_html.cc    the same as one HTML page (--html): timeline_svg.cc draws each failed check's history,
//                     day_chart_svg.cc the day's damage; report_command.cc is `grader report`
//   matrix.cc         the grader checking itself against every reference stage and wrong turn
//   day_*.cc          `grader day`: the day of requests (generate, replay, audit, show). LAB.md "The day"
//   demo*.cc          `grader demo`: narrated failure scenarios for a class. LAB.md "The day" (the show)
//   mutants.cc        `grader mutants`: the grader checking itself against realistic mistakes in stage 6
//   soak*.cc          `grader soak`: crash-and-retry rounds on one database file. LAB.md "Reliability"
//   load*.cc          `grader load`: bounded loopback load on stage 6. LAB.md "Plumbing" (Reliability)
#include <iostream>

#include "grader/checks/check.h"
#include "grader/cli/day.h"
#include "grader/cli/demo.h"
#include "grader/cli/load.h"
#include "grader/cli/mutants.h"
#include "grader/cli/grade.h"
#include "grader/cli/matrix.h"
#include "grader/cli/options.h"
#include "grader/cli/report_command.h"
#include "grader/cli/soak.h"

int main(int argc, char** argv) {
  // Subcommands with their own command lines (each has --help).
  if (argc > 1 && std::string(argv[1]) == "day") return grader::run_day(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "demo")
    return grader::run_demo(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "mutants")
    return grader::run_mutants(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "soak") return grader::run_soak(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "load")
    return grader::run_load(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "report")
    return grader::run_report(std::vector<std::string>(argv + 2, argv + argc));
  auto parsed = grader::parse_grader_options(std::vector<std::string>(argv + 1, argv + argc));
  if (auto* error = std::get_if<std::string>(&parsed)) {
    std::cerr << "grader: " << *error << "\nTry 'grader --help'.\n";
    return 2;
  }
  const auto& options = std::get<grader::GraderOptions>(parsed);
  switch (options.mode) {
    case grader::GraderOptions::Mode::Help:
      std::cout << grader::usage();
      return 0;
    case grader::GraderOptions::Mode::List:
      for (const auto& check : grader::all_checks())
        std::cout << check.name << "  " << check.title << "  (LAB.md \"" << check.section << "\")\n";
      return 0;
    case grader::GraderOptions::Mode::Matrix:
      return grader::run_matrix(options);
    case grader::GraderOptions::Mode::Grade:
      return grader::run_grade(options);
  }
  return 2;
}
