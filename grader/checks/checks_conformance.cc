// checks_conformance.cc: stageN.conformance, the last check of each stage 2..6 (issue 51). docs/teach/grader-checks-itself.md
// "Explore: random histories judged by the model".
//
// The named checks before it each try what their author thought of. This one tries what nobody wrote: random
// histories of a client's steps (grader/explore/history.h), each on a fresh server started from the --server
// command, every answer judged by the model of the contract held to stage N (grader/model/). The first
// answer no right server of stage N could give is a finding: the history shrunk to the shortest that still
// fails the same rule and run once more on a fresh server (grader/explore/search.h), step by step with what
// came back, the rule, what the model allowed and what the server answered. That last run is recorded in the
// check's history, so the report's timeline shows it, the refused request marked.
//
// Truthful by construction: a model of stage N relaxes every later lesson, and a refusal credits the lowest
// stage whose model refuses the history (grader/model/ladder.h): a server with the lessons before it could
// have answered so, none with its. So the credit is a lesson the server lacks, never a later one (the
// matrix's truth table and grader mutants hold it to that: grader/record/truth.h).
//
// The histories are the seed's (explore::history_seed from the grader's --seed): `grader explore --stage N
// --seed S --histories K --length L` runs the same ones.
#include "grader/checks/check_run.h"
#include "grader/explore/search.h"
#include "grader/model/ladder.h"

namespace grader {
namespace {

// Steps per history, and the runs the shrinking may make. Measured on the shared 2-core machine (2026-12-07):
// ten histories of ten steps (kConformanceHistories, check.h) take 5-9 s on each reference stage 2-6, every
// answer allowed; shrinking a refused history takes 5-10 runs of about half a second in the cases measured.
// The budget of runs bounds a server that fails slowly.
constexpr int kStepsPerHistory = 10;
constexpr int kMaxShrinkRuns = 60;
// The check's time bound: the histories, the shrinking's runs and the confirming run, each a second or two on
// a right server, with room for a loaded or sanitized machine. Past it the check ends with what it found.
constexpr std::chrono::seconds kConformanceTimeBound{240};

// The check's history as the grader's: each request of the run that confirms a refusal, as it goes.
class IntoCheckHistory : public explore::Recorder {
 public:
  explicit IntoCheckHistory(CheckRun& run) : run_(run) {}
  std::int64_t sent(int step, const HttpRequest& request) override {
    return run_.record_invoke(step == explore::kBalancesAtEnd ? "balances-at-end" : "step-" + std::to_string(step + 1),
                              request);
  }
  void answered(std::int64_t op, const Exchange& exchange) override { run_.record_complete(op, exchange); }
  void fault(const std::string& what, const std::string& detail) override { run_.record_fault(what, detail); }

 private:
  CheckRun& run_;
};

// The op of the refused request in the run shown, when it was recorded (the confirming run).
std::vector<std::int64_t> refused_op(const explore::Run& run) {
  for (const explore::Exchanged& x : run.exchanges)
    if (x.refused && x.op != 0) return {x.op};
  return {};
}

void conformance(CheckRun& run, int stage) {
  if (run.histories() == 0) return run.add_caveat("--histories 0: no random history was run");
  const explore::Budget budget{.histories = run.histories(), .length = kStepsPerHistory, .max_shrink_tries = kMaxShrinkRuns};
  Target& graded = run.target();
  const explore::StartServer start = [&graded] { return graded.launch_sibling(graded.facts()); };
  IntoCheckHistory recorder(run);
  const explore::Searched found =
      explore::search(start, stage, run.seed(), budget, graded.facts(), run.deadline(), &recorder);
  if (!found.error.empty()) throw CheckAborted("a fresh server did not start for " + found.error);
  if (found.out_of_time && !found.divergence) {
    // No answer in time is never a pass.
    run.add_finding({.anomaly = Anomaly::NoResponse,
                     .what = "the random histories ran past the check's time bound of " +
                             std::to_string(run.check().time_bound.count()) + " s after " +
                             std::to_string(found.allowed) + " of " + std::to_string(budget.histories) +
                             ", every answer allowed until then: the server answers too slowly to be judged"});
    return;
  }
  if (!found.divergence) return;
  const explore::Divergence& d = *found.divergence;
  const model::Judgement& refusal = d.run.refusal;
  run.add_finding({.anomaly = Anomaly::DisallowedAnswer,
                   .what = "rule " + refusal.rule + " broken: " + refusal.rule_text + " (random history " +
                           std::to_string(d.number) + " of " + std::to_string(budget.histories) + ", shrunk from " +
                           std::to_string(d.steps_before) + " steps to " + std::to_string(d.history.size()) + ": " +
                           std::to_string(explore::requests_in(d.history)) + " requests)",
                   .sent = explore::steps_text(d.history, d.run) + explore::confirmation_text(d),
                   .received = refusal.observed,
                   .expected = refusal.allowed_words +
                               (refusal.capped || d.run.capped
                                    ? "\n(the model dropped states past its limit on the way: this refusal may be "
                                      "the model's own)"
                                    : ""),
                   .hint = "rule " + refusal.rule + " is taught in " + refusal.chapter + "; the lesson lacking is " +
                           model::lacking_words(refusal),
                   .ops = refused_op(d.run),
                   .fixed_by = refusal.lesson_stage});
}

}  // namespace

Check conformance_check(int stage) {
  return {.name = "stage" + std::to_string(stage) + ".conformance",
          .stage = stage,
          .title = "every answer of random histories is one the contract allows",
          .teaches = {"docs/teach/grader-checks-itself.md", "Explore: random histories judged by the model"},
          .hint = "the shortest history found is shown step by step; the rule it breaks says what the contract "
                  "requires there, and its chapter teaches it",
          .needs = Needs::FreshServers,
          .run = [stage](CheckRun& r) { conformance(r, stage); },
          .time_bound = kConformanceTimeBound};
}

}  // namespace grader
