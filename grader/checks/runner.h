// runner.h: runs the selected checks against one server, in order, and collects their outcomes.
// docs/teach/grader.md "The grader".
//
//   std::vector<Check> all = all_checks();   // outlives the run: the outcomes point into it
//   auto outcomes = run_checks(target, history, select_checks(all, selection), config, &reporter);
//
// The contract (stage 0) runs first; if any of it fails, the other checks are not run (they would only
// repeat the same failure). A check that needs a restart is skipped when the grader did not start the
// server (--url). Each check gets its own inputs from the seed (grader/base/rng.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grader/checks/check.h"
#include "grader/record/anomaly.h"
#include "grader/record/audit.h"
#include "grader/record/history.h"
#include "grader/wire/target.h"

namespace grader {

enum class Verdict { Pass, Fail, Skip };

struct CheckOutcome {
  const Check* check = nullptr;
  Verdict verdict = Verdict::Pass;
  std::vector<Finding> findings;  // why it failed
  std::string note;               // why it was skipped, an error that stopped it, or what it could not see
  double seconds = 0;
  Balances before, after;
};

struct Selection {
  int stage = 6;                     // checks of stages 1..stage
  std::optional<int> only;           // or only this stage
  std::optional<std::string> check;  // or only this check
};

struct RunConfig {
  std::uint64_t seed = 0;
  std::string nonce;           // "" with --server (fresh database); random with --url
  std::string repeat_command;  // the grader command line that repeats this run, without --check
  int histories = kConformanceHistories;  // random histories per stageN.conformance (check.h)
};

// Told about each check as it starts and ends (terminal lines, the matrix's progress).
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void started(const Check&) {}
  virtual void waiting(const Check&, const std::string& /*what*/) {}  // a check that waits long, every few s
  virtual void finished(const CheckOutcome&) {}
  // Asked after each check: false ends the run there, the checks after it not run and not listed (a caller
  // whose verdict is already decided: `grader mutants --until-named`).
  virtual bool wants_more() const { return true; }
  virtual void contract_failed() {}
};

// The checks a selection names, contract first. Empty if --check names no check.
std::vector<const Check*> select_checks(const std::vector<Check>& all, const Selection& selection);

std::vector<CheckOutcome> run_checks(Target& target, History& history, const std::vector<const Check*>& checks,
                                     const RunConfig& config, Reporter* reporter);

bool all_passed(const std::vector<CheckOutcome>& outcomes);  // no Fail (skips allowed)

}  // namespace grader
