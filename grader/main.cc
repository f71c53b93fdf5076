// main.cc: the grader's entry point, a table of its commands. docs/teach/grader.md "The grader".
//
// The rooms below it (grader/CMakeLists.txt draws the floors): cli/ holds every command and the one
// command-line parser they share (cli/command_line.h); report/ what people and CI systems read; day/, demo/,
// soak/, load/ and explore/ the engines; checks/ the checks and their runner; record/ the history and the audit;
// wire/ HTTP and the server's process; base/ the ground floor.
#include <malloc.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "grader/checks/check.h"
#include "grader/cli/class_command.h"
#include "grader/cli/day.h"
#include "grader/cli/demo.h"
#include "grader/cli/explore.h"
#include "grader/cli/grade.h"
#include "grader/cli/load.h"
#include "grader/cli/matrix.h"
#include "grader/cli/mutants.h"
#include "grader/cli/options.h"
#include "grader/cli/report_command.h"
#include "grader/cli/soak.h"
#include "grader/wire/process_keeper.h"

namespace {

using Args = std::vector<std::string>;

struct Command {
  const char* name;     // grader NAME ...
  const char* summary;  // its line in `grader --help`; `grader NAME --help` says the rest
  int (*run)(const Args& args);
};

// `grader matrix` shares the grading options (options.h); every other command parses its own line.
int run_matrix_command(const Args& args) {
  Args line{"matrix"};
  line.insert(line.end(), args.begin(), args.end());
  auto parsed = grader::parse_grader_options(line);
  if (auto* error = std::get_if<std::string>(&parsed)) return grader::usage_error(grader::matrix_spec(), *error);
  const auto& options = std::get<grader::GraderOptions>(parsed);
  if (options.mode == grader::GraderOptions::Mode::Help) return std::cout << help_text(grader::matrix_spec()), 0;
  return grader::run_matrix(options);
}

const Command kCommands[] = {
    {"matrix", "the grader checks itself against every reference stage and wrong turn", run_matrix_command},
    {"report", "the matrix and the day on every stage, as one HTML page", grader::run_report},
    {"day", "the day of requests: generate, replay, show", grader::run_day},
    {"demo", "narrated failure scenarios on the real stage servers", grader::run_demo},
    {"mutants", "the grader against stage 6's mutants", grader::run_mutants},
    {"soak", "crash-and-retry rounds on stage 6, each checked", grader::run_soak},
    {"load", "bounded loopback load on stage 6", grader::run_load},
    {"explore", "random histories judged by the model of the contract, shrunk", grader::run_explore},
    {"class", "a whole class of submissions, a few at a time, with a summary", grader::run_class},
};

// `grader --help`: grading one server, and the commands (each has its own --help).
grader::CommandSpec top_level_spec() {
  grader::CommandSpec spec = grader::grade_spec();
  spec.usage.push_back("COMMAND [options]   a command below; grader COMMAND --help says more");
  std::size_t width = 0;
  for (const auto& command : kCommands) width = std::max(width, std::string(command.name).size());
  std::string commands = "Commands:\n";
  for (const auto& command : kCommands)
    commands += "  " + std::string(command.name) + std::string(width + 2 - std::string(command.name).size(), ' ') +
                command.summary + "\n";
  spec.description = commands + "\n" + spec.description;
  return spec;
}

int run_command_line(const Args& args) {
  if (!args.empty())
    for (const auto& command : kCommands)
      if (args[0] == command.name) return command.run(Args(args.begin() + 1, args.end()));
  auto parsed = grader::parse_grader_options(args);
  if (auto* error = std::get_if<std::string>(&parsed)) return grader::usage_error(top_level_spec(), *error);
  const auto& options = std::get<grader::GraderOptions>(parsed);
  switch (options.mode) {
    case grader::GraderOptions::Mode::Help:
      std::cout << grader::help_text(top_level_spec());
      return 0;
    case grader::GraderOptions::Mode::List:
      for (const auto& check : grader::all_checks())
        std::cout << check.name << "  " << check.title << "  (" << grader::reference_text(check.teaches) << ")\n";
      return 0;
    case grader::GraderOptions::Mode::Matrix:  // reached through kCommands
      return grader::run_matrix(options);
    case grader::GraderOptions::Mode::Grade:
      return grader::run_grade(options);
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Whatever the servers do, nothing they started outlives the grader (grader/wire/process_keeper.h).
  grader::become_subreaper();
  // A server's answers can be large (up to the cap in grader/wire/wire.cc), many at once in a burst. glibc
  // raises its mmap threshold each time such a block is freed, after which they come from per-thread
  // arenas that keep the memory: a fixed threshold hands every large block back when it is freed.
  ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  const int status = run_command_line(Args(argv + 1, argv + argc));
  grader::end_every_child();
  return status;
}
