// checks_commit_crash.cc: stage 4's crash between any two commits of a request. docs/learn/stage-4-two-phase.md "Stage 4: in_progress, then completed", docs/reference/lab-controls.md "Lab controls".
//
// Stage 4's promise is that money and the key's completion commit together, so a crash anywhere leaves
// either nothing (a claim, taken over after its lease) or both (replayed). A server that commits them in
// two transactions breaks it only if the crash lands between those two commits, which a SIGKILL hits by
// luck (stage4.sigkill-burst passed 5 seeds of 5 on such a server). `Lab-Crash: after-commit-N` ends the
// server right after the request's N-th commit, wherever its code commits: the check crashes a request
// after its first commit, then a new request after its second, and so on until a request runs out of
// commits and ends normally. After each crash the retry must settle to one transfer.
#include "grader/checks/check_helpers.h"
#include "grader/checks/kept_key.h"

namespace grader {
namespace {

// More commits than any request of a right server makes (the lab's stages make two: the claim, then the
// money with the completion); a server that makes more is crashed after each of them up to here.
constexpr int kMostCommits = 6;

void crash_between_commits(CheckRun& run) {
  KeptKey kept(run);  // did the keys outlive the crashes at all? (kept_key.h)
  for (int n = 1; n <= kMostCommits; ++n) {
    auto [alice, from, to] = client_with_two_accounts(run, "alice");
    Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    pay.expect_moves = 1;
    const std::string point = "after-commit-" + std::to_string(n);
    Attempt crash = pay.attempt().with_header(kLabCrash, point);
    Exchange x = run.send(crash);
    if (x.response) {  // the request made fewer than n commits: it ended normally, and so does the check
      if (n == 1)  // the lab control is missing, not the lesson: its own hint, and no blame on the commits
        run.add_finding({.anomaly = Anomaly::WrongStatus,
                         .what = "Lab-Crash: after-commit-1 did not crash the server, and a request that moves money "
                                 "commits at least once: the lab control after-commit-N is not implemented",
                         .sent = show_request(crash),
                         .received = show_exchange(x),
                         .expected = "no answer: the process ends right after the request's first commit",
                         .hint = "implement the lab control (docs/reference/lab-controls.md \"Lab controls\"): with "
                                 "Lab-Crash: after-commit-N the process ends right after the request's N-th commit, "
                                 "counting every transaction that request commits",
                         .intent = pay.id});
      else
        run.expect_status(x, crash, {201});
      return;
    }
    run.crashed_on_purpose("Lab-Crash: " + point);
    if (n == 1) kept.judge_after_restart(run);  // before the retry, and before the clock moves
    const std::size_t findings_before = run.findings().size();
    const Attempt retry = pay.attempt();
    Exchange done = run.settle(retry, Settle{.lease_takeover = true});
    run.expect_status(done, retry, {200, 201}, "", anomaly_of_wrong_answer(done, Anomaly::NotExecuted));
    if (run.findings().size() > findings_before) {
      run.add_to_last_finding(" (the server had crashed right after the request's commit " + std::to_string(n) + ")");
      return;
    }
  }
}

}  // namespace

Check commit_crash_check() {
  return {.name = "stage4.crash-between-commits",
          .stage = 4,
          .title = "a crash right after any commit of a request, then a retry, moves the money exactly once",
          .teaches = {"docs/learn/stage-4-two-phase.md", "Stage 4: in_progress, then completed"},
          .hint = "commit the money and the key's completion in one transaction: a crash between two commits "
                  "must leave nothing half done",
          .needs = Needs::OwnServer,
          .run = crash_between_commits,
          .own_server = kShortLease};
}

}  // namespace grader
