// checks_sigkill.cc: a real SIGKILL during a burst of retries. docs/learn/stage-4-two-phase.md "Stage 4: in_progress, then completed", docs/reference/lab-controls.md "Lab controls".
//
// Lab-Crash ends the process at two chosen lines. A SIGKILL can land anywhere: inside a transaction,
// between the claim and the money, while a response is being written. After it the server is restarted on
// the same database and every client retries (after the leases ran out) until it has an answer. Per intent:
// money moved at most once, and exactly once when a client was told success. The kill's moment is drawn
// from the seed, so --seed repeats the schedule (the interleaving around it is up to the machine).
#include <atomic>
#include <thread>

#include "grader/checks/check_helpers.h"
#include "grader/checks/kept_key.h"

namespace grader {
namespace {

constexpr int kIntents = 6;  // clients retrying at once
// When the SIGKILL lands, after the burst starts (milliseconds). Half the clients hold a long Lab-Delay-Ms,
// so they are surely in flight (claimed, money not moved); the other half a short one, so some finish or
// are committing around the kill.
constexpr int kMinKillAfterMs = 40, kMaxKillAfterMs = 120;
constexpr int kLongDelayMin = 150, kLongDelayMax = 300;
constexpr int kShortDelayMin = 0, kShortDelayMax = 40;
constexpr std::chrono::milliseconds kRetryPause{15};
// Short: once the server is dead, a client should notice quickly rather than wait out the usual patience.
constexpr std::chrono::milliseconds kClientConnectPatience{200};

void sigkill_burst(CheckRun& run) {
  KeptKey kept(run);  // did the keys outlive the kill at all? (kept_key.h)
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  std::vector<Attempt> firsts, retries;
  std::vector<Intent*> intents;
  for (int n = 0; n < kIntents; ++n) {
    Intent& i =
        run.world().transfer(*alice, *(n % 2 ? from : to), *(n % 2 ? to : from), affordable_amount(run, *from) / 2 + 1);
    i.expect_moves = 1;
    intents.push_back(&i);
    retries.push_back(i.attempt());
    auto delay =
        n % 2 ? run.rng().between(kShortDelayMin, kShortDelayMax) : run.rng().between(kLongDelayMin, kLongDelayMax);
    firsts.push_back(i.attempt().with_header(kLabDelay, std::to_string(delay)));
  }
  const auto kill_after = std::chrono::milliseconds(run.rng().between(kMinKillAfterMs, kMaxKillAfterMs));

  // Each client: send, and on 409, 503 or no answer send again, until an answer or the kill.
  std::atomic<bool> killed{false};
  std::vector<std::jthread> clients;
  for (int n = 0; n < kIntents; ++n)
    clients.emplace_back([&, n] {
      for (bool first = true; !killed; first = false) {
        Exchange x = run.send(first ? firsts[n] : retries[n], kClientConnectPatience);
        if (x.response && x.response->status != 409 && x.response->status != 503) return;
        std::this_thread::sleep_for(kRetryPause);
      }
    });
  std::this_thread::sleep_for(kill_after);
  run.sigkill("SIGKILL " + std::to_string(kill_after.count()) + " ms into the burst");
  killed = true;
  clients.clear();  // joins: the clients saw their connections drop

  run.restart();
  kept.judge_after_restart(run);
  run.advance_past_lease();  // claims the kill interrupted may be taken over now
  for (int n = 0; n < kIntents; ++n) {
    Exchange x = run.settle(retries[n], Settle{.lease_takeover = true});
    run.expect_status(x, retries[n], {200, 201}, "", anomaly_of_wrong_answer(x, Anomaly::WrongStatus));
  }
}

}  // namespace

Check sigkill_check() {
  return {.name = "stage4.sigkill-burst",
          .stage = 4,
          .title = "a SIGKILL during a burst of retries moves each intent at most once, and once if told success",
          .teaches = {"docs/learn/stage-4-two-phase.md", "Stage 4: in_progress, then completed"},
          .hint = "the money and the key's completion commit together; a restart loses nothing committed",
          .needs = Needs::Restart,
          .run = sigkill_burst};
}

}  // namespace grader
