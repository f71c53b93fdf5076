// runner.cc: see runner.h.
#include "grader/checks/runner.h"

#include "grader/checks/check_run.h"
#include "grader/record/overlap.h"

namespace grader {
namespace {

constexpr const char* kHungServerHint =
    "a server that stops answering is stuck: a lock or a transaction a request left held, or two locks taken in "
    "opposite orders by two requests; every request must end, and let go of what it holds, on every path";

}  // namespace

std::vector<const Check*> select_checks(const std::vector<Check>& all, const Selection& selection) {
  std::vector<const Check*> out;
  for (const auto& c : all) {
    bool wanted = c.stage == 0;
    if (selection.check)
      wanted = wanted || c.name == *selection.check;
    else if (selection.only)
      wanted = wanted || c.stage == *selection.only;
    else
      wanted = wanted || c.stage <= selection.stage;
    if (wanted) out.push_back(&c);
  }
  if (selection.check) {
    bool found = false;
    for (const auto* c : out) found = found || c->name == *selection.check;
    if (!found) out.clear();
  }
  return out;
}

namespace {

CheckOutcome run_one(Target& target, History& history, const Check& check, const RunConfig& config,
                     Reporter* reporter) {
  CheckOutcome outcome;
  outcome.check = &check;
  auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  if (check.needs != Needs::Nothing && !target.can_restart()) {
    outcome.verdict = Verdict::Skip;
    outcome.note = check.needs == Needs::Restart
                       ? "skipped: it crashes the server, and with --url the grader cannot restart it (use --server)"
                   : check.needs == Needs::OwnServer
                       ? "skipped: it starts a server of its own with other --lease and --key-ttl (use --server)"
                       : "skipped: it starts a fresh server for each of its runs, and with --url the grader has no "
                         "command to start one with (use --server)";
    return outcome;
  }
  std::string stopped;  // why the check ended early, when it did
  std::unique_ptr<Target> own;  // Needs::OwnServer: started for this check, stopped after it
  try {
    if (!target.alive()) target.restart_after_crash();  // an earlier check left it down
    if (check.needs == Needs::OwnServer) own = target.launch_sibling(check.own_server);
    CheckRun run(check, own ? *own : target, history, config.seed, config.nonce, 0, config.histories);
    if (reporter) run.on_waiting([&](const std::string& what) { reporter->waiting(check, what); });
    try {
      check.run(run);
      // A check that passed on the surface must not have left the server unable to answer: no answer is
      // never a pass (a refusal the check expected may have been a server that hung).
      if (check.stage > 0 && run.findings().empty()) run.confirm_still_answers();
    } catch (const CheckOverTime& e) {
      if (run.findings().empty())
        run.fail(Anomaly::NoResponse, std::string(e.what()) + ": the server kept it waiting (409 or 503 or no "
                                                              "answer) until then");
      else
        stopped = std::string("stopped at its time bound of ") + std::to_string(check.time_bound.count()) +
                  " s, with the findings above";
    } catch (const CheckAborted& e) {
      run.fail(Anomaly::NoResponse, std::string("the check could not go on: ") + e.what());
    } catch (const ApiError& e) {
      if (e.requests_being_served > 0)  // a 503 beside the check's requests (grader/record/overlap.h)
        run.add_finding({.anomaly = Anomaly::WrongStatus,
                         .what = std::string("an admin or read call failed: ") + e.what() +
                                 ": the server fails a request that overlaps another (do its threads share one "
                                 "database connection with no lock around it?), or its database stayed busy "
                                 "longer than it waits",
                         .hint = kOverlapped503Hint});
      else if (e.no_response)  // no answer at all is not a shape: say what was seen
        run.add_finding({.anomaly = Anomaly::NoResponse,
                         .what = std::string("an admin or read call got no answer: ") + e.what() +
                                 ": the server stopped answering (it may have hung on a request before it)",
                         .hint = kHungServerHint});
      else
        run.fail(Anomaly::ContractShape, std::string("an admin or read call failed: ") + e.what());
    }
    run.finish();
    outcome.note = run.caveat().empty() ? stopped : stopped.empty() ? run.caveat() : stopped + "\n" + run.caveat();
    outcome.findings = run.findings();
    outcome.before = run.balances_before();
    outcome.after = run.balances_after();
  } catch (const std::exception& e) {
    // No CheckRun is left to add it: the check could not start, or its audit could not finish. A server that
    // answers nothing any more is not the check's lesson: it hung, here or before.
    const auto* api = dynamic_cast<const ApiError*>(&e);
    outcome.findings.push_back(
        {.anomaly = Anomaly::NoResponse,
         .what = std::string("the check stopped: ") + e.what() +
                 (api && api->no_response ? ": the server stopped answering (it may have hung on a request before it)" : ""),
         .hint = api && api->no_response ? kHungServerHint : ""});
    outcome.note = target.can_restart() ? "server stderr (last lines):\n" + (own ? *own : target).stderr_tail() : "";
  }
  if (own) own->stop();
  // A server ended for going over a limit fails the check it was ended in, named for the limit first.
  if (const std::string over = (own ? *own : target).limit_hit(); !over.empty())
    outcome.findings.insert(outcome.findings.begin(),
                            {.anomaly = Anomaly::OverLimit, .what = "the grader ended the server: " + over});
  outcome.verdict = outcome.findings.empty() ? Verdict::Pass : Verdict::Fail;
  outcome.seconds = elapsed();
  return outcome;
}

}  // namespace

std::vector<CheckOutcome> run_checks(Target& target, History& history, const std::vector<const Check*>& checks,
                                     const RunConfig& config, Reporter* reporter) {
  std::vector<CheckOutcome> outcomes;
  bool contract_ok = true;
  for (const Check* check : checks) {
    if (check->stage > 0 && !contract_ok) {
      if (reporter && outcomes.back().check->stage == 0) reporter->contract_failed();
      outcomes.push_back(
          {check, Verdict::Skip, {}, "not run: the server does not speak the contract yet (stage 0)", 0, {}, {}});
      continue;
    }
    if (reporter) reporter->started(*check);
    outcomes.push_back(run_one(target, history, *check, config, reporter));
    if (reporter) reporter->finished(outcomes.back());
    if (check->stage == 0 && outcomes.back().verdict == Verdict::Fail) contract_ok = false;
    if (reporter && !reporter->wants_more()) break;
  }
  return outcomes;
}

bool all_passed(const std::vector<CheckOutcome>& outcomes) {
  for (const auto& o : outcomes)
    if (o.verdict == Verdict::Fail) return false;
  return !outcomes.empty();
}

}  // namespace grader
