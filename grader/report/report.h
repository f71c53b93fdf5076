// report.h: how outcomes are shown to a person: one line per check, and for a failure what was sent,
// what came back, what was expected, the balances, a hint, the chapter to read and the command that
// repeats it. docs/teach/grader.md "The grader" (output).
//
//   const bool colour = use_colour(STDOUT_FILENO);
//   TerminalReporter reporter(std::cout, colour, config.repeat_command, isatty(STDOUT_FILENO), all_findings);
//   auto outcomes = run_checks(target, history, selected, config, &reporter);
//   print_summary(std::cout, outcomes, colour, seconds);
//
// Colour only on a terminal, and never when NO_COLOR is set (no-color.org).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "grader/checks/runner.h"

namespace grader {

bool use_colour(int fd);

// Findings shown in full, in the terminal (unless --all-findings) and on the HTML page (the rest fold under a
// <details>): more would bury the first, which is usually the cause, and a burst check has one per key.
inline constexpr std::size_t kFindingsShown = 3;

// The failure's full text, without colour (also the "output" of results.json and JUnit). With all_findings
// false (the terminal's default) only the first few findings are shown, and a line says how many more.
std::string describe_failure(const CheckOutcome& outcome, const std::string& repeat_command, bool all_findings);
// The same without its last line, "repeat: <command>", for a caller that repeats a run its own way
// (`grader soak --round N`).
std::string describe_findings(const CheckOutcome& outcome, bool all_findings);
std::string check_line(const CheckOutcome& outcome, bool colour);  // "  PASS  stage1  name  title  0.02s"
// A word for /bin/sh, in single quotes: the repeat commands the grader prints are pasted into a shell.
std::string shell_quote(const std::string& word);
// "grader ... --check NAME": the repeat command with the check appended.
std::string repeat_for(const std::string& repeat_command, const std::string& check_name);

class TerminalReporter : public Reporter {
 public:
  TerminalReporter(std::ostream& out, bool colour, std::string repeat_command, bool progress, bool all_findings)
      : out_(out),
        colour_(colour),
        repeat_(std::move(repeat_command)),
        progress_(progress),
        all_findings_(all_findings) {}
  void started(const Check& check) override;
  void waiting(const Check& check, const std::string& what) override;
  void finished(const CheckOutcome& outcome) override;
  void contract_failed() override;

 private:
  std::ostream& out_;
  const bool colour_;
  const std::string repeat_;
  const bool progress_;  // a "running ..." line overwritten by the result (terminals only)
  const bool all_findings_;  // --all-findings: every finding of a failure, not only the first few
  int last_stage_ = -1;
};

void print_summary(std::ostream& out, const std::vector<CheckOutcome>& outcomes, bool colour, double seconds);

}  // namespace grader
