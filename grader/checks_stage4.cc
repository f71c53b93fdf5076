// checks_stage4.cc: stage 4, two phases. LAB.md "Stage 4".
//
// The key is claimed (in_progress) before the work and completed in the same transaction as the money.
// So a repeat while the first request runs hears 409, a crash leaves an honest in_progress claim that a
// retry takes over once its lease runs out (lab clock), and a first request whose lease was taken over is
// fenced out. The SIGKILL check is in checks_sigkill.cc.
#include <future>
#include <thread>

#include "grader/check_helpers.h"

namespace grader {
namespace {

// The slow first request, running on its own thread while the check sends the repeat.
std::future<Exchange> send_slow(CheckRun& run, const Attempt& slow) {
  return std::async(std::launch::async, [&run, slow] { return run.send(slow); });
}

// A success must only come once the money is in the ledger: look right away (the auditor's rule A3).
void observe_if_success(CheckRun& run, const Exchange& x, const Intent& intent) {
  if (is_success(x)) run.observe(intent);
}

// Names what is wrong with an answer that came while the first request was still running: a success with
// no money in the ledger yet is the in-flight lie; one with a second transfer is a double apply.
Anomaly anomaly_of_early_answer(CheckRun& run, const Exchange& x, const Intent& intent) {
  if (!is_success(x)) return Anomaly::WrongStatus;
  auto seen = run.observe(intent);
  return seen == 0 ? Anomaly::InFlightLie : seen > 1 ? Anomaly::DoubleApply : Anomaly::WrongStatus;
}

void in_flight_repeat(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  auto first = send_slow(run, pay.attempt().with_header(kLabDelay, std::to_string(kSlowFirstDelayMs)));
  std::this_thread::sleep_for(kRepeatAfter);  // the first has claimed the key and sleeps
  Attempt repeat = pay.attempt();
  Exchange x = run.send(repeat);
  if (run.expect_status(x, repeat, {409}, "request-in-progress", anomaly_of_early_answer(run, x, pay)) &&
      !x.response->header("Retry-After"))
    run.fail(Anomaly::ContractShape, "409 without a Retry-After header", &repeat, &x);
  Exchange original = first.get();
  Exchange after = run.settle(repeat);  // afterwards: the result
  run.expect_status(after, repeat, {201});
  if (entry_id(original) && entry_id(after) && entry_id(original) != entry_id(after))
    run.fail(Anomaly::ReplayMismatch,
             "the repeat after completion names transfer " + std::to_string(*entry_id(after)) +
                 ", the first request created " + std::to_string(*entry_id(original)),
             &repeat, &after);
}

void crash_before_money(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Attempt crash = pay.attempt().with_header(kLabCrash, "before-money");
  Exchange x = run.send(crash);
  if (x.response) return run.fail(Anomaly::WrongStatus, "Lab-Crash: before-money did not crash the server", &crash, &x);
  run.crashed_on_purpose("Lab-Crash: before-money");
  // The claim is still held: a retry now must not be told success (the money did not move).
  Attempt retry = pay.attempt();
  Exchange early = run.send(retry);
  observe_if_success(run, early, pay);
  if (is_success(early) && run.moves(pay) == 0)
    run.fail(Anomaly::LostWrite,
             "the server crashed on the first request (Lab-Crash: before-money, before its money moved); this retry, "
             "sent right after the restart, was told success, and no money had moved",
             &retry, &early, "409 request-in-progress until the lease runs out, then the retry executes");
  if (early.response && early.response->status != 409 && early.response->status != 503) return;  // answered
  // After the lease, a retry takes the claim over and moves the money once.
  Exchange done = run.settle(pay.attempt(), Settle{.lease_takeover = true});
  observe_if_success(run, done, pay);
  run.expect_status(done, pay.attempt(), {201}, "", anomaly_of_wrong_answer(done, Anomaly::WrongStatus));
}

void crash_after_money(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Attempt crash = pay.attempt().with_header(kLabCrash, "after-money");
  Exchange x = run.send(crash);
  if (x.response) return run.fail(Anomaly::WrongStatus, "Lab-Crash: after-money did not crash the server", &crash, &x);
  run.crashed_on_purpose("Lab-Crash: after-money");
  Exchange done = run.settle(pay.attempt(), Settle{.lease_takeover = true});
  run.expect_status(done, pay.attempt(), {200, 201}, "", anomaly_of_wrong_answer(done, Anomaly::WrongStatus));
}

void lease_fencing(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Attempt slow = pay.attempt().with_header(kLabDelay, std::to_string(kSlowFirstDelayMs));
  auto first = send_slow(run, slow);
  std::this_thread::sleep_for(kRepeatAfter);
  run.advance_past_lease();  // the slow one still sleeps, but its lease is over
  Attempt retry = pay.attempt();
  Exchange taken = run.send(retry);
  // No takeover (409 after the lease ran out) is a key stuck in progress, not a broken fence.
  run.expect_status(taken, retry, {201}, "",
                    is_success(taken) ? anomaly_of_early_answer(run, taken, pay)
                                      : anomaly_of_wrong_answer(taken, Anomaly::WrongStatus));
  Exchange fenced = first.get();
  observe_if_success(run, fenced, pay);
  if (!is_success(taken)) return;  // nothing was taken over, so there is no fence to judge
  if (run.moves(pay) > 1)
    run.fail(Anomaly::FenceBroken, "the first request moved money after its lease was taken over", &slow, &fenced,
             "409: the fenced request rolls back");
  else if (is_success(fenced))
    run.fail(Anomaly::FenceBroken, "the request whose lease was taken over was told success too", &slow, &fenced,
             "409: only the request that took the lease over completes");
}

void overdraft_key_not_stuck(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& big = run.world().transfer(*alice, *from, *to, from->opening + run.rng().between(1, 5'000));
  big.max_moves = 0;
  run.expect_status(run.settle(big.attempt()), big.attempt(), {402}, "insufficient-funds");
  Exchange again = run.settle(big.attempt());
  Anomaly why = again.response && again.response->status == 409 ? Anomaly::StuckKey
                : is_success(again)                             ? Anomaly::LostWrite
                                                                : Anomaly::WrongStatus;
  run.expect_status(again, big.attempt(), {402}, "insufficient-funds", why);
}

}  // namespace

std::vector<Check> stage4_checks() {
  const std::string section = "Stage 4: in_progress, then completed";
  auto checks = std::vector<Check>{
      {"stage4.in-flight-repeat", 4, "a repeat during a slow first request gets 409 with Retry-After, then the result",
       section, "claim the key as in_progress; answer a repeat 409 until it is completed", Needs::Nothing,
       in_flight_repeat},
      {"stage4.crash-before-money", 4, "a crash before the money moves never yields a success without money", section,
       "record completed in the same transaction as the money; a lapsed lease lets a retry take over", Needs::Restart,
       crash_before_money},
      {"stage4.crash-after-money", 4, "a crash after the money moved yields exactly one transfer", section,
       "commit the money and the key's completion together", Needs::Restart, crash_after_money},
      {"stage4.lease-fencing", 4, "a first request slower than its lease is fenced out when a retry takes over",
       section, "check, in the money's transaction, that you still hold the claim (a fencing token)", Needs::Nothing,
       lease_fencing},
      {"stage4.overdraft-key-not-stuck", 4, "an overdraft does not leave its key stuck", section,
       "a 402 is a deterministic outcome: complete the key with it", Needs::Nothing, overdraft_key_not_stuck},
  };
  checks.push_back(sigkill_check());
  return checks;
}

}  // namespace grader
