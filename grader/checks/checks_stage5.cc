// checks_stage5.cc: stage 5, the stored response. docs/learn/stage-5-replay.md "Stage 5: replay the stored response".
//
// A repeat of a completed request gets the first response itself: the same status, the same body bytes
// (even though the balance has changed since), and Idempotent-Replayed: true. Refusals such as 402 are
// outcomes too and replay the same way, every one the bank answers (402, 404, 400 currency-mismatch, 422
// balance-limit), even once its cause is gone; so does every copy of a burst. A first answer is never marked
// a replay.
#include "grader/checks/check_helpers.h"
#include "grader/checks/refusals.h"

namespace grader {
namespace {

constexpr int kReplayBurst = 16;
// Moves the lab clock between the first answer and the repeat, so a rebuilt created_at cannot match.
constexpr std::int64_t kClockStepMs = 1'000;

// The repeat must equal the first answer byte for byte, and say it is a replay; the first must not say so.
void expect_replay(CheckRun& run, const Attempt& repeat, const Exchange& first, const Exchange& again) {
  if (!first.response) return;
  expect_not_marked_replay(run, repeat, first);
  if (!again.response) return run.fail(Anomaly::NoResponse, "the repeat got no response", &repeat, &again);
  std::string why;
  if (again.response->status != first.response->status)
    why = "another status";
  else if (again.response->body != first.response->body)
    why = "other body bytes";
  else if (again.response->media_type() != first.response->media_type())
    why = "another Content-Type";
  else if (auto marked = again.response->header("Idempotent-Replayed"); !marked)
    why = "no \"Idempotent-Replayed: true\"";
  else if (*marked != "true")  // said as seen: a header that is there, with a value that is not the contract's
    why = "its Idempotent-Replayed header is \"" + *marked + "\", and the contract's value is exactly \"true\"";
  if (!why.empty())
    run.fail(Anomaly::ReplayMismatch, "the repeat differs from the first response: " + why, &repeat, &again,
             "the first response, byte for byte:\n" + show_exchange(first) + "\n  with Idempotent-Replayed: true");
}

void replay_byte_identical(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Exchange first = run.settle(pay.attempt());
  run.expect_status(first, pay.attempt(), {201});
  Intent& later = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));  // the balance changes
  later.expect_moves = 1;
  run.settle(later.attempt());
  run.advance_clock_ms(kClockStepMs, "so that a rebuilt response would show another created_at");
  expect_replay(run, pay.attempt(), first, run.settle(pay.attempt()));
}

void replay_402(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& big = run.world().transfer(*alice, *from, *to, from->opening + run.rng().between(1, 5'000));
  big.max_moves = 0;
  Exchange first = run.settle(big.attempt());
  run.expect_status(first, big.attempt(), {402}, "insufficient-funds");
  Intent& small = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));  // the balance changes
  small.expect_moves = 1;
  run.settle(small.attempt());
  expect_replay(run, big.attempt(), first, run.settle(big.attempt()));
}

// Each refusal of the bank is stored like a 201: the same key and body replay it, even after its cause is
// gone (the account was topped up, the full target spent), and move nothing; another body under the key is
// 422 idempotency-key-reused.
void replay_refusals(CheckRun& run) {
  ClientInfo& alice = run.world().client("alice");
  for (RefusalKind kind : kRefusalKinds) {
    Refusal refusal = set_up_refusal(run, alice, kind);
    const Intent& refused = *refusal.intent;
    const std::size_t before = run.findings().size();
    Exchange first = run.settle(refused.attempt());
    if (!run.expect_status(first, refused.attempt(), {refusal.status}, refusal.problem_type)) continue;
    if (refusal.remove_cause) refusal.remove_cause();
    expect_replay(run, refused.attempt(), first, run.settle(refused.attempt()));
    const Attempt changed = refused.attempt().with_body(
        transfer_body(refused.from, refused.to, refused.amount + 1, refused.currency, refused.memo));
    Exchange x = run.settle(changed, Settle{.nothing_running = true});
    if (!run.expect_status(x, changed, {422}, "idempotency-key-reused",
                           anomaly_of_wrong_answer(x, Anomaly::ReplayMismatch)) &&
        x.response && x.response->header("Idempotent-Replayed").value_or("") == "true")
      // Another body got a replay: the server replays before it compares the fingerprint.
      run.give_last_finding_lesson(3, "compare the request's fingerprint with the key's before anything else: "
                                      "another body under the key is 422 idempotency-key-reused, whatever is stored");
    if (run.findings().size() > before)
      run.add_to_last_finding(" (a stored " + std::to_string(refusal.status) + " " + refusal.problem_type + ": " +
                              refusal.cause + (refusal.remove_cause ? ", and that was put right" : "") + ")");
  }
}

void replay_burst(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Exchange first = run.settle(pay.attempt());
  run.expect_status(first, pay.attempt(), {201});
  run.advance_clock_ms(kClockStepMs, "so that a rebuilt response would show another created_at");
  auto copies = run.send_simultaneously(std::vector<Attempt>(kReplayBurst, pay.attempt()));
  std::size_t before = run.findings().size();
  for (const auto& x : copies) {
    expect_replay(run, pay.attempt(), first, x);
    if (run.findings().size() > before) break;  // one example is enough
  }
}

}  // namespace

std::vector<Check> stage5_checks() {
  const DocRef chapter = stage_chapter(5);
  return {
      {.name = "stage5.replay-byte-identical",
       .stage = 5,
       .title = "a repeat after completion is byte-identical, even after the balance changed",
       .teaches = chapter,
       .hint = "store status, Content-Type and body bytes at completion; replay them with Idempotent-Replayed: true",
       .needs = Needs::Nothing,
       .run = replay_byte_identical},
      {.name = "stage5.replay-402",
       .stage = 5,
       .title = "a stored 402 replays identically",
       .teaches = chapter,
       .hint = "a refusal is an outcome too: store it like a 201",
       .needs = Needs::Nothing,
       .run = replay_402},
      {.name = "stage5.replay-refusals",
       .stage = 5,
       .title = "every stored refusal (402, 404, 400 currency-mismatch, 422 balance-limit) replays, even once its "
                "cause is gone",
       .teaches = chapter,
       .hint = "complete the key with whatever the bank answered, in the money's transaction; replay it",
       .needs = Needs::Nothing,
       .run = replay_refusals},
      {.name = "stage5.replay-burst",
       .stage = 5,
       .title = "a burst of simultaneous repeats after completion is identical every time",
       .teaches = chapter,
       .hint = "replay from the stored bytes, never rebuild",
       .needs = Needs::Nothing,
       .run = replay_burst},
  };
}

}  // namespace grader
