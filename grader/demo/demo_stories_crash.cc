// demo_stories_crash.cc: the stories of what a key says while the money has not moved yet: before a crash
// (wrong turn 4a), after one (wrong turn 4b), and while the first request still runs (stage 3).
// docs/teach/the-day.md "The day" (the show); "Wrong turns: 4a, 4b", "Stage 3: What it still gets wrong", "Stage 4".
#include <thread>

#include "grader/demo/demo_stories.h"

namespace grader {
namespace {

// Slow enough that a repeat can arrive in the middle, short enough for a class.
constexpr const char* kSlowRequestMs = "1500";  // Lab-Delay-Ms
constexpr std::chrono::milliseconds kRepeatAfter{300};  // the first request has claimed its key by then

bool in_progress(const Exchange& x) {
  return x.response && x.response->status == 409 &&
         x.response->body.find("request-in-progress") != std::string::npos;
}

struct RetryResult {
  int in_progress_answers = 0;     // 409s while a dead claim held its lease
  bool told_success_unpaid = false;  // a 2xx arrived while no money had moved
};

// The client's retry after a crash. A stage that keeps the dead request's claim answers 409 until its lease
// runs out; the lab clock is moved past it once, then the retry is sent again.
RetryResult retry_after_crash(Scene& scene, const HttpRequest& request, const std::string& memo) {
  RetryResult r;
  scene.step("Her app saw no answer, so it retries: the same request, the same key.");
  Exchange x = scene.send(request);
  if (in_progress(x)) {
    ++r.in_progress_answers;
    const auto lease = std::chrono::seconds(scene.target().facts().lease_seconds);
    scene.step("The dead request's claim holds its lease (" + std::to_string(lease.count()) +
               " s): nobody may run it meanwhile. The lab clock moves past the lease; the app retries again.");
    scene.advance_clock(lease + std::chrono::seconds(1));
    x = scene.send(request);
  }
  r.told_success_unpaid = succeeded(x) && scene.moves(memo) == 0;
  return r;
}

}  // namespace

namespace {

struct AfterCrash {
  RetryResult retry;
  int moves = 0;
};

// Alice's gift, a crash at `point` (Lab-Crash), a restart on the same database, and her app's retries.
AfterCrash gift_crash_and_retry(Scene& scene, const std::string& key, std::int64_t cents, const std::string& memo,
                                const char* point, const std::string& narration) {
  auto [alice, from, to] = scene.client_with_two_accounts("alice", 10'000, "USD");
  const auto gift = scene.transfer(alice, key, transfer_body(from.id, to.id, cents, "USD", memo));
  scene.show_balances("before", {from, to});

  scene.step(narration);
  auto crashing = gift;
  crashing.headers.emplace_back("Lab-Crash", point);
  scene.send(crashing);
  scene.restart_after_crash();
  scene.show_ledger("before the retry", memo);

  RetryResult r = retry_after_crash(scene, gift, memo);
  scene.show_balances("after", {from, to});
  return {r, scene.moves(memo)};
}

}  // namespace

Outcome crash_completed_first(Scene& scene, const Outcome*) {
  auto [r, moves] = gift_crash_and_retry(
      scene, "gift-02", 700, "gift 02", "before-money",
      "Alice sends a 7.00 USD gift. The server process dies after taking the key and before moving the money (a "
      "deploy, an OOM kill: Lab-Crash: before-money).");
  if (r.told_success_unpaid) {
    scene.damage("Alice's app was told the gift was sent and stops retrying. No money moved, and no error "
                 "was logged anywhere.");
    return {true, "the retry was told success and the money moved " + times(moves)};
  }
  return {moves != 1, "the money moved " + times(moves) +
                          (r.in_progress_answers ? ", after the dead claim's lease ran out (409 until then)" : "")};
}

Outcome crash_money_first(Scene& scene, const Outcome*) {
  auto [r, moves] = gift_crash_and_retry(
      scene, "gift-03", 300, "gift 03", "after-money",
      "Alice sends a 3.00 USD gift. The money commits, and the server process dies before it answers "
      "(Lab-Crash: after-money).");
  if (moves > 1) scene.damage("No key said the money had moved, so the retry moved it again.");
  return {moves != 1 || r.told_success_unpaid, "the money moved " + times(moves) + " for one intent"};
}

Outcome in_flight_done(Scene& scene, const Outcome*) {
  auto [alice, from, to] = scene.client_with_two_accounts("alice", 10'000, "USD");
  const std::string memo = "gift 01";
  const auto gift = scene.transfer(alice, "gift-01", transfer_body(from.id, to.id, 500, "USD", memo));
  scene.show_balances("before", {from, to});

  // One step for both requests: a --step pause between them would let the first one finish.
  scene.step("Alice sends 5.00 USD; the server takes " + std::string(kSlowRequestMs) + " ms over it. A repeat (a "
             "second tab, an eager retry) arrives " + std::to_string(kRepeatAfter.count()) +
             " ms later, while the first is still running.");
  auto slow = gift;
  slow.headers.emplace_back("Lab-Delay-Ms", kSlowRequestMs);
  auto first = scene.send_in_background(slow);
  std::this_thread::sleep_for(kRepeatAfter);
  Exchange repeat = scene.send(gift);
  const int moves_then = scene.show_ledger("at that moment", memo);
  const bool told_done_unpaid = succeeded(repeat) && moves_then == 0;
  if (told_done_unpaid) scene.damage("\"Done\" was said before anything was done.");

  scene.step("The first request finishes.");
  scene.show_answer(first.get());
  scene.show_balances("after", {from, to});
  int moves = scene.moves(memo);
  const int status = repeat.response ? repeat.response->status : 0;
  if (told_done_unpaid)
    return {true, "the repeat was answered " + std::to_string(status) + " while no money had moved"};
  const auto retry_after = repeat.response ? repeat.response->header("Retry-After") : std::nullopt;
  return {moves != 1, "the repeat was answered " + std::to_string(status) +
                          (in_progress(repeat) ? " request-in-progress" : "") +
                          (retry_after ? " with Retry-After: " + *retry_after : "") + "; the money moved " + times(moves)};
}

}  // namespace grader
