// checks_stage4.cc: stage 4, two phases. docs/learn/stage-4-two-phase.md "Stage 4: in_progress, then completed".
//
// The key is claimed (in_progress) before the work and completed in the same transaction as the money.
// So a repeat while the first request runs hears 409, a crash leaves an honest in_progress claim that a
// retry takes over once its lease runs out (lab clock), and a first request whose lease was taken over is
// fenced out. The SIGKILL check is in checks_sigkill.cc.
#include <thread>

#include "grader/checks/check_helpers.h"
#include "grader/checks/kept_key.h"

namespace grader {
namespace {

// A first request that outlives a one-second lease in real time, with room for a slow machine.
constexpr int kRealLeaseSlowFirstDelayMs = 2'500;

// A success must only come once the money is in the ledger: look right away (the auditor's rule A3).
void observe_if_success(CheckRun& run, const Exchange& x, const Intent& intent) {
  if (is_success(x)) run.observe(intent);
}

void in_flight_repeat(CheckRun& run) {
  const TwoAccounts accounts = client_with_two_accounts(run, "alice");
  const bool seen = with_growing_delay(run, [&](int times) {
    auto [pay, sent, first] = send_slow_first(run, accounts, grown_delay(kSlowFirstDelayMs, times));
    std::this_thread::sleep_for(kRepeatAfter);  // the first has claimed the key and sleeps
    Attempt repeat = pay.attempt();
    Exchange x = run.send(repeat);
    const Anomaly early = anomaly_of_early_answer(run, x, pay);  // the ledger now, while the first sleeps
    Exchange original = first.get();
    if (auto timing = timing_of(x, original); timing != RepeatTiming::InFlight) return timing;
    if (is_success(x) && is_in_progress(original)) {
      // The first request was fenced out by its own repeat: so a claim existed, and it ended early.
      run.fail(early,
               "intent " + pay.id + ": the repeat, sent " + std::to_string(kRepeatAfter.count()) +
                   " ms after the first request while it still ran, was answered " + std::to_string(status_of(x)) +
                   ", and the first request was then answered 409: the repeat took the key over from a live " +
                   "request. The key was claimed, but the claim lasted under a second on a server started with " +
                   "--lease " + std::to_string(run.target().facts().lease_seconds) +
                   " (a lease counted in another unit, or on another clock?)",
               &repeat, &x, "409 request-in-progress while the first request runs");
      return RepeatTiming::InFlight;
    }
    if (run.expect_status(x, repeat, {409}, "request-in-progress", early)) {
      // The 409 came, so the server has this stage's lesson: its header is the contract's to fix.
      if (!x.response->header("Retry-After")) {
        run.fail(Anomaly::ContractShape, "409 without a Retry-After header", &repeat, &x);
        run.give_last_finding_lesson(0, kRetryAfterHint);
      } else if (!retry_after_seconds(x)) {
        run.fail(Anomaly::ContractShape,
                 "Retry-After is \"" + *x.response->header("Retry-After") +
                     "\", not a whole number of seconds (RFC 9110 section 10.2.3, delay-seconds = 1*DIGIT)",
                 &repeat, &x, "409 with Retry-After: <seconds>, e.g. Retry-After: 1");
        run.give_last_finding_lesson(0, kRetryAfterHint);
      }
    }
    Exchange after = run.settle(repeat);  // afterwards: the result
    run.expect_status(after, repeat, {201});
    if (entry_id(original) && entry_id(after) && entry_id(original) != entry_id(after))
      run.fail(Anomaly::ReplayMismatch,
               "the repeat after completion names transfer " + std::to_string(*entry_id(after)) +
                   ", the first request created " + std::to_string(*entry_id(original)),
               &repeat, &after);
    return RepeatTiming::InFlight;
  });
  if (!seen) fail_held_repeat(run, "a repeat while the first runs is answered 409 request-in-progress at once");
}

void crash_before_money(CheckRun& run) {
  KeptKey kept(run);
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Attempt crash = pay.attempt().with_header(kLabCrash, "before-money");
  const std::int64_t sent_ns = monotonic_ns();  // the claim, and so the start of its lease, came after this
  Exchange x = run.send(crash);
  if (x.response) return run.fail(Anomaly::WrongStatus, "Lab-Crash: before-money did not crash the server", &crash, &x);
  run.crashed_on_purpose("Lab-Crash: before-money");
  // The claim is still held until its lease runs out: a retry now must not execute, and must not be told
  // success (the money did not move). The server cannot know yet that the holder is dead: another
  // instance of it could be running the request.
  Attempt retry = pay.attempt();
  Exchange early = run.send(retry);
  // Within the lease for certain only if answered less than a lease after the crashed request was sent: a
  // server slow to restart, or a retry slowed by load, may find the lease over, and then executing is right.
  const bool within_lease = early.done_ns - sent_ns < run.target().facts().lease_seconds * 1'000'000'000LL;
  observe_if_success(run, early, pay);
  // A key table that did not outlive the restart lost the crashed request's claim too: that finding, credited
  // to durable keys, explains a retry that executed at once (kept_key.h).
  const bool keys_lost = kept.judge_after_restart(run);
  if (is_success(early) && run.moves(pay) == 0)
    run.fail(Anomaly::LostWrite,
             "the server crashed on the first request (Lab-Crash: before-money, before its money moved); this retry, "
             "sent right after the restart, was told success, and no money had moved",
             &retry, &early, "409 request-in-progress until the lease runs out, then the retry executes");
  else if (is_success(early) && within_lease && !keys_lost)
    run.fail(Anomaly::WrongStatus,
             "right after the crash a retry executed at once, while the crashed request's claim was still within "
             "its lease: a claim is known dead only when its lease is over",
             &retry, &early, "409 request-in-progress until the lease runs out, then the retry executes");
  if (early.response && early.response->status != 409 && early.response->status != 503) {
    // Answered: a success is judged above; any other answer is none the contract gives this retry (a 422 to
    // its very bytes is the fingerprint's: CheckRun::expect_status says so).
    if (!is_success(early)) run.expect_status(early, retry, {409}, "request-in-progress");
    return;
  }
  // After the lease, a retry takes the claim over and moves the money once.
  Exchange done = run.settle(pay.attempt(), Settle{.lease_takeover = true});
  observe_if_success(run, done, pay);
  run.expect_status(done, pay.attempt(), {201}, "", anomaly_of_wrong_answer(done, Anomaly::WrongStatus));
}

// A transfer completed before the crash tells whether the keys survived the restart at all: a key table
// kept in memory (or emptied at every start) forgets it too, and its repeat moves the money again (kept_key.h).
void crash_after_money(CheckRun& run) {
  KeptKey kept(run);
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Attempt crash = pay.attempt().with_header(kLabCrash, "after-money");
  Exchange x = run.send(crash);
  if (x.response) return run.fail(Anomaly::WrongStatus, "Lab-Crash: after-money did not crash the server", &crash, &x);
  run.crashed_on_purpose("Lab-Crash: after-money");
  kept.judge_after_restart(run);
  Exchange done = run.settle(pay.attempt(), Settle{.lease_takeover = true});
  run.expect_status(done, pay.attempt(), {200, 201}, "", anomaly_of_wrong_answer(done, Anomaly::WrongStatus));
}

// The would-be takeover was answered with the first request's own transfer, and the money moved once: the
// first had committed before the takeover claimed (a machine slow enough to run the 500 ms sleep late), so
// nothing was taken over. The ledger and the ids say so, not the times (a verdict never depends on load).
bool answered_with_first_outcome(CheckRun& run, const Intent& pay, const Exchange& taken, const Exchange& fenced) {
  return is_success(taken) && is_success(fenced) && entry_id(taken) && entry_id(taken) == entry_id(fenced) &&
         run.moves(pay) == 1;
}

// The request whose lease was taken over (`slow`, answered `fenced`) rolls back: no money of its own, no
// success, and no 5xx either, which says it found out only when completing the key.
void fail_if_fence_broken(CheckRun& run, const Intent& pay, const Attempt& slow, const Exchange& fenced) {
  if (run.moves(pay) > 1)
    run.fail(Anomaly::FenceBroken, "the first request moved money after its lease was taken over", &slow, &fenced,
             "409: the fenced request rolls back");
  else if (is_success(fenced))
    run.fail(Anomaly::FenceBroken, "the request whose lease was taken over was told success too", &slow, &fenced,
             "409: only the request that took the lease over completes");
  else if (status_of(fenced) >= 500)
    run.fail(Anomaly::FenceBroken,
             "the request whose lease was taken over got " + std::to_string(status_of(fenced)) +
                 ": it found out only when completing the key (does it check its claim before the money moves?)",
             &slow, &fenced, "409: the fenced request rolls back and says the key is in progress");
}

// A slow first request whose lease runs out while it sleeps, and a retry that takes the claim over.
// real_time: wait the (short) lease out in real time as well as on the lab clock, for a server whose leases
// keep real time; the first request sleeps long enough for that.
enum class FenceRound { Judged, KeyStillHeld, RetryLate };
FenceRound fence_round(CheckRun& run, bool real_time, int delay_ms, RepeatTiming* retry_timing) {
  auto [pay, slow, first] = send_slow_first(run, client_with_two_accounts(run, "alice"), delay_ms);
  std::this_thread::sleep_for(kRepeatAfter);
  run.advance_past_lease();  // the slow one still sleeps, but its lease is over
  if (real_time) run.wait_out_lease_in_real_time();
  Attempt retry = pay.attempt();
  Exchange taken = run.send(retry);
  if (is_in_progress(taken)) {
    // No takeover (409 after the lease ran out) is a key stuck in progress, not a broken fence: judged
    // while the first request still sleeps, so the finding can say that its key never expires.
    if (real_time) run.expect_status(taken, retry, {201}, "", anomaly_of_wrong_answer(taken, Anomaly::WrongStatus));
    observe_if_success(run, first.get(), pay);
    return real_time ? FenceRound::Judged : FenceRound::KeyStillHeld;  // on the lab clock: try real time
  }
  const Anomaly if_not_201 = is_success(taken) ? anomaly_of_early_answer(run, taken, pay)  // the ledger now
                                               : anomaly_of_wrong_answer(taken, Anomaly::WrongStatus);
  Exchange fenced = first.get();
  observe_if_success(run, fenced, pay);
  *retry_timing = timing_of(taken, fenced);
  // Answered with the first's own transfer: it was claimed only after the first had committed, whatever the
  // answers' times say (the thread that read the first answer may have run late). The server was slow, or it
  // holds a retry until the first ends: a late answer, as timing_of would call it had the times been exact.
  if (*retry_timing == RepeatTiming::InFlight && answered_with_first_outcome(run, pay, taken, fenced))
    *retry_timing = RepeatTiming::AnsweredLate;
  if (*retry_timing != RepeatTiming::InFlight) return FenceRound::RetryLate;
  run.expect_status(taken, retry, {201}, "", if_not_201);
  if (!is_success(taken)) return FenceRound::Judged;  // nothing was taken over, so there is no fence to judge
  fail_if_fence_broken(run, pay, slow, fenced);
  return FenceRound::Judged;
}

// On a server of its own with a lease of one second: first on the lab clock (fast); if the server's lease
// did not end with it, on real time from then on.
void lease_fencing(CheckRun& run) {
  bool real_time = false;
  RepeatTiming retry_timing = RepeatTiming::InFlight;
  const bool seen = with_growing_delay(run, [&](int times) {
    for (;;) {
      const int delay_ms = grown_delay(real_time ? kRealLeaseSlowFirstDelayMs : kSlowFirstDelayMs, times);
      const FenceRound round = fence_round(run, real_time, delay_ms, &retry_timing);
      if (round != FenceRound::KeyStillHeld) return round == FenceRound::Judged ? RepeatTiming::InFlight : retry_timing;
      real_time = true;
    }
  });
  if (!seen) fail_held_repeat(run, "a retry after the lease takes the claim over at once");
}

// A takeover is a claim like the first one: it holds its own lease. A retry right after it is a repeat of a
// request in flight (409), not a third holder, or no slow request could ever finish while its client retries.
// Up to kInFlightRounds rounds: a right server answers the third 409 in any round whose retry came in time.
void takeover_holds_lease(CheckRun& run) {
  const TwoAccounts accounts = client_with_two_accounts(run, "alice");
  bool real_time = false, judged = false;
  Exchange third;
  Attempt third_attempt;
  for (int round = 0; round < kInFlightRounds; ++round) {
    const int delay_ms = real_time ? kRealLeaseSlowFirstDelayMs : kSlowFirstDelayMs;
    auto [pay, slow, first] = send_slow_first(run, accounts, delay_ms);
    std::this_thread::sleep_for(kRepeatAfter);
    // The control: the first claim holds while its lease lasts. Only then can the takeover's be blamed.
    Attempt control = pay.attempt();
    if (Exchange held = run.send(control); !is_in_progress(held)) {
      const Anomaly early = anomaly_of_early_answer(run, held, pay);
      observe_if_success(run, first.get(), pay);
      expect_held(run, held, control, early, "before the lab clock moved");
      return;
    }
    run.advance_past_lease();
    if (real_time) run.wait_out_lease_in_real_time();
    // The takeover, slow as well, so that it still holds the key when the third attempt comes.
    auto second = send_in_background(run, pay.attempt().with_header(kLabDelay, std::to_string(kSlowFirstDelayMs)));
    std::this_thread::sleep_for(kRepeatAfter);
    third_attempt = pay.attempt();
    third = run.send(third_attempt);
    Exchange taken = second.get(), fenced = first.get();
    for (const Exchange* x : {&fenced, &taken, &third}) observe_if_success(run, *x, pay);
    // The first had finished before the takeover was sent, or before it claimed (a slow machine): nothing
    // was taken over, and the "takeover" was a repeat of a completed request, answered with the first's own
    // transfer while the money moved once. The round shows nothing; try another.
    if (timing_of(taken, fenced) == RepeatTiming::SentLate || answered_with_first_outcome(run, pay, taken, fenced))
      continue;
    // The first woke while the takeover still ran: the moment a claim check that is not exact lets it on.
    if (is_success(taken)) fail_if_fence_broken(run, pay, slow, fenced);
    if (is_in_progress(third) && is_in_progress(taken) && !real_time) {
      real_time = true;  // nothing was taken over on the lab clock: the server's leases keep real time
      continue;
    }
    if (is_in_progress(third)) return;  // the takeover held its lease
    judged = true;
    if (!is_success(third)) break;  // another answer is a finding of its own
  }
  if (!judged) return;
  if (is_success(third))
    run.fail(Anomaly::WrongStatus,
             "in " + std::to_string(kInFlightRounds) + " rounds, a retry sent while the request that had taken " +
                 "the claim over still ran took it over again, though the first claim had held against a repeat " +
                 "before its lease ran out: a takeover gets no lease of its own, so every retry fences out the " +
                 "holder before it and a slow request never finishes",
             &third_attempt, &third, "409 request-in-progress: the takeover holds the key for a lease");
  else
    run.expect_status(third, third_attempt, {409}, "request-in-progress");
}

// A 503 frees the failed request's own claim and nothing else: another key in flight stays in progress.
// A repeat before the 503 is the control: only if it was told 409 can a repeat after it blame the release
// (a claim that does not hold at all, or a lease far shorter than --lease, fails the control too).
void busy_frees_only_its_key(CheckRun& run) {
  const TwoAccounts accounts = client_with_two_accounts(run, "alice");
  const bool seen = with_growing_delay(run, [&](int times) {
    auto [pay, sent, first] = send_slow_first(run, accounts, grown_delay(kSlowFirstDelayMs, times));
    std::this_thread::sleep_for(kRepeatAfter);  // the first has claimed its key and sleeps
    Attempt control = pay.attempt();
    Exchange held = run.send(control);
    if (!is_in_progress(held)) {
      const Anomaly early = anomaly_of_early_answer(run, held, pay);
      Exchange original = first.get();
      observe_if_success(run, original, pay);
      if (auto timing = timing_of(held, original); timing != RepeatTiming::InFlight) return timing;
      expect_held(run, held, control, early, "before any other request failed");
      return RepeatTiming::InFlight;
    }
    Intent& other = run.world().transfer(*accounts.owner, *accounts.from, *accounts.to,
                                         affordable_amount(run, *accounts.from));
    Attempt busy = other.attempt().with_header(kLabFail, "busy");
    Exchange failed = run.send(busy);
    Attempt repeat = pay.attempt();
    Exchange x = run.send(repeat);
    const Anomaly early = anomaly_of_early_answer(run, x, pay);  // the ledger now, while the first sleeps
    Exchange original = first.get();
    observe_if_success(run, original, pay);
    observe_if_success(run, failed, other);
    if (auto timing = timing_of(x, original); timing != RepeatTiming::InFlight) return timing;
    if (status_of(failed) == 503 && status_of(x) == 503)
      run.expect_status(x, repeat, {409}, "request-in-progress");  // a 503 of its own: said as such
    else if (status_of(failed) == 503 && !is_in_progress(x))
      run.fail(early, "after another key's request failed with 503, a repeat of this key, whose first request " +
                          std::string("still ran, was not told 409, though a repeat just before the 503 was: ") +
                          "freeing the failed claim freed this one too (is the release's condition only its own row?)",
               &repeat, &x, "409 request-in-progress");
    return RepeatTiming::InFlight;
  });
  if (!seen) fail_held_repeat(run, "a repeat while the first runs is answered 409 request-in-progress at once");
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

// A failure that is not the request's own (the database busy: 503) rolls the money back, so it must free
// the key too: the client's retry then runs at once, instead of hearing 409 until the lease runs out.
void busy_releases_key(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Attempt busy = pay.attempt().with_header(kLabFail, "busy");
  if (!run.expect_status(run.send(busy), busy, {503}, "service-unavailable")) return;  // Lab-Fail not honoured
  Attempt retry = pay.attempt();
  Exchange x = run.settle(retry, Settle{.nothing_running = true});
  run.expect_status(x, retry, {201}, "", anomaly_of_wrong_answer(x, Anomaly::LostWrite));
}

}  // namespace

std::vector<Check> stage4_checks() {
  const DocRef chapter = stage_chapter(4);
  auto checks = std::vector<Check>{
      {.name = "stage4.in-flight-repeat",
       .stage = 4,
       .title = "a repeat during a slow first request gets 409 with Retry-After, then the result",
       .teaches = chapter,
       .hint = "claim the key as in_progress; answer a repeat 409 until it is completed",
       .needs = Needs::Nothing,
       .run = in_flight_repeat},
      {.name = "stage4.crash-before-money",
       .stage = 4,
       .title = "a crash before the money moves never yields a success without money",
       .teaches = chapter,
       .hint = "record completed in the same transaction as the money; a lapsed lease lets a retry take over",
       .needs = Needs::OwnServer,
       .run = crash_before_money,
       .own_server = kCrashLease},
      {.name = "stage4.crash-after-money",
       .stage = 4,
       .title = "a crash after the money moved yields exactly one transfer",
       .teaches = chapter,
       .hint = "commit the money and the key's completion together",
       .needs = Needs::OwnServer,
       .run = crash_after_money,
       .own_server = kShortLease},
      {.name = "stage4.lease-fencing",
       .stage = 4,
       .title = "a first request slower than its lease is fenced out when a retry takes over",
       .teaches = chapter,
       .hint = "check, in the money's transaction, that you still hold the claim (a fencing token)",
       .needs = Needs::OwnServer,
       .run = lease_fencing,
       .own_server = kShortLease},
      {.name = "stage4.busy-releases-key",
       .stage = 4,
       .title = "after a 503 (database busy) the retry runs at once: the key was freed",
       .teaches = chapter,
       .hint = "on a failure that is not the request's own, roll back and release the claim",
       .needs = Needs::Nothing,
       .run = busy_releases_key},
      {.name = "stage4.takeover-holds-lease",
       .stage = 4,
       .title = "a retry while the request that took the claim over still runs gets 409: a takeover has a lease",
       .teaches = chapter,
       .hint = "a takeover sets locked_until = now + lease, as the first claim did",
       .needs = Needs::OwnServer,
       .run = takeover_holds_lease,
       .own_server = kShortLease},
      {.name = "stage4.busy-frees-only-its-key",
       .stage = 4,
       .title = "a 503 frees only its own key: another key in flight still answers 409",
       .teaches = chapter,
       .hint = "release only your own claim: the row's id and fence, while in_progress",
       .needs = Needs::Nothing,
       .run = busy_frees_only_its_key},
      {.name = "stage4.overdraft-key-not-stuck",
       .stage = 4,
       .title = "an overdraft does not leave its key stuck",
       .teaches = chapter,
       .hint = "a 402 is a deterministic outcome: complete the key with it",
       .needs = Needs::Nothing,
       .run = overdraft_key_not_stuck},
  };
  checks.push_back(commit_crash_check());
  checks.push_back(sigkill_check());
  return checks;
}

}  // namespace grader
