// kept_key.cc: see kept_key.h.
#include "grader/checks/kept_key.h"

#include "grader/checks/check_helpers.h"
#include "grader/record/truth.h"

namespace grader {

KeptKey::KeptKey(CheckRun& run) {
  auto [owner, from, to] = client_with_two_accounts(run, "alice");
  intent_ = &run.world().transfer(*owner, *from, *to, affordable_amount(run, *from));
  intent_->expect_moves = 1;
  first_ = run.settle(intent_->attempt());
  run.expect_status(first_, intent_->attempt(), {201});
  run.settle(intent_->attempt());  // the control: does the server keep keys at all?
  recognised_ = run.moves(*intent_) == 1;
  run.advance_past_finished_leases();
  forgotten(run, Event::LeasePassed);
}

bool KeptKey::judge_after_restart(CheckRun& run) { return forgotten(run, Event::Restart); }

bool KeptKey::forgotten(CheckRun& run, Event event) {
  const Attempt repeat = intent_->attempt();
  Exchange after = run.settle(repeat);
  const bool restart = event == Event::Restart;
  const std::string when = restart ? "the restart" : "the lab clock passed the lease";
  // The ledger says whether the repeat executed again, not the answer's shape: a server may answer a repeat in
  // its own words ("already processed", stage 2 and 3) and still have kept its key.
  if (run.moves(*intent_) > 1) {
    if (!recognised_) {  // the keys were never kept: the check's own finding, no cause claimed
      run.fail(Anomaly::DoubleApply,
               "a transfer completed before " + when + " was executed again by its repeat after it (a repeat "
               "before was not recognised either)",
               &repeat, &after, "the first response replayed:\n" + show_exchange(first_));
      return true;
    }
    recognised_ = false;  // its key is a new one now: later repeats tell nothing
    const int lesson = lesson_teaching(restart ? "durable-keys" : "key-ttl");
    run.add_finding(
        {.anomaly = Anomaly::DoubleApply,
         .what = restart ? "keys did not survive the restart: a transfer completed before the crash, whose repeats "
                           "before the crash moved nothing, was executed again by its repeat after it"
                         : "a completed key was forgotten once the lab clock passed its lease (" +
                               std::to_string(run.target().facts().lease_seconds) + " s), long before --key-ttl (" +
                               std::to_string(run.target().facts().key_ttl_seconds) +
                               " s): a transfer whose repeat before moved nothing was executed again by its repeat "
                               "after the clock move",
         .sent = show_request(repeat),
         .received = show_exchange(after),
         .expected = "the first response replayed:\n" + show_exchange(first_),
         .hint = restart ? "keep the keys where the money is, in the database: they must outlive the process"
                         : "a completed key is kept for --key-ttl on the lab clock; only an in_progress claim ends "
                           "with its lease",
         .intent = intent_->id,
         .cause = restart ? Cause::KeysNotDurable : Cause::None,
         .fixed_by = lesson});
    run.credit_double_applies(lesson);
    return true;
  }
  if (!is_success(after))  // not answered as the repeat of a completed transfer
    run.expect_status(after, repeat, {200, 201}, "", anomaly_of_wrong_answer(after, Anomaly::WrongStatus));
  else if (entry_id(after) && entry_id(first_) && entry_id(after) != entry_id(first_))
    // The money did not move again, so this is no double apply: the answer names another request's transfer.
    run.fail(Anomaly::ReplayMismatch,
             "after " + when + ", the repeat of a completed transfer names transfer " +
                 std::to_string(*entry_id(after)) + ", the first request created " + std::to_string(*entry_id(first_)) +
                 " (the money did not move again)",
             &repeat, &after, "the first request's transfer:\n" + show_exchange(first_));
  return false;
}

}  // namespace grader
