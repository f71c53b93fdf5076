// demo_stories_keys.cc: the stories of what a key table must decide: that a retry is a repeat (stage 1),
// that a repeat carries the same request (stage 2), and who is first when repeats arrive together
// (wrong turn 2a). docs/teach/the-day.md "The day" (the show); "Stage 1", "Stage 2: What it still gets wrong",
// "Wrong turns: 2a".
#include <algorithm>
#include <map>
#include <vector>

#include "grader/demo/demo_stories.h"

namespace grader {
namespace {

// Simultaneous retries: copies per burst, and the most bursts tried before saying the race did not show.
constexpr int kCopiesPerBurst = 16;
// A burst catches 2a's race about one time in ten here, so 200 bursts (about 40 ms each) miss it with a
// probability near 1e-8, and a flaky demo in front of a class is worse than a slow one.
constexpr int kMaxBursts = 200;
constexpr int kBurstsShownInFull = 3;  // later quiet bursts are summed up in one line

// "200 x15, 201 x1": the answers of one burst, by status ("none" for a lost one).
std::string tally(const std::vector<Exchange>& answers) {
  std::map<int, int> by_status;
  for (const auto& x : answers) ++by_status[x.response ? x.response->status : 0];
  std::string out;
  for (auto [status, count] : by_status)
    out += (out.empty() ? "" : ", ") + (status ? std::to_string(status) : "none") + " x" + std::to_string(count);
  return out;
}

}  // namespace

std::string times(int moves) {
  if (moves == 0) return "0 times";
  if (moves == 1) return "once";
  return std::to_string(moves) + " times";
}

void lose_slow_answer(Scene& scene, const HttpRequest& request, const std::string& memo) {
  auto slow = request;
  slow.headers.emplace_back("Lab-Delay-Ms", kProcessingDelayMs);
  scene.send_and_lose(slow, kGatewayTimeout);
  scene.wait_for_moves(memo, 1, kFinishPatience);
  scene.show_ledger("meanwhile the server finished it", memo);
}

Outcome lost_response(Scene& scene, const Outcome*) {
  auto [alice, from, to] = scene.client_with_two_accounts("alice", 10'000, "USD");
  const std::string memo = "rent 2026-11";
  const auto rent = scene.transfer(alice, "rent-2026-11", transfer_body(from.id, to.id, 1'500, "USD", memo));
  scene.show_balances("before", {from, to});

  scene.step("Alice pays 15.00 USD rent. The server is slow today; her gateway gives up after " +
             std::to_string(kGatewayTimeout.count()) + " ms.");
  lose_slow_answer(scene, rent, memo);

  scene.step("She cannot know whether the money moved, so her app retries: the same request, the same key.");
  scene.send(rent);

  scene.show_balances("after", {from, to});
  int moves = scene.moves(memo);
  return {moves > 1, "the money moved " + times(moves) + " for one intent"};
}

Outcome changed_amount(Scene& scene, const Outcome*) {
  auto [customer, from, to] = scene.client_with_two_accounts("customer", 1'000'000, "KRW");
  const std::string memo = "counter 7731";
  const auto first = scene.transfer(customer, "counter-7731", transfer_body(from.id, to.id, 200'000, "KRW", memo));
  const auto corrected = scene.transfer(customer, "counter-7731", transfer_body(from.id, to.id, 300'000, "KRW", memo));
  scene.show_balances("before", {from, to});

  scene.step("At the counter a teller keys in 200,000 KRW and presses Send; the screen times out.");
  lose_slow_answer(scene, first, memo);

  scene.step("The customer says \"three hundred thousand\". The teller corrects the amount on the same screen "
             "(which keeps its key) and presses Send again.");
  Exchange x = scene.send(corrected);
  int status = x.response ? x.response->status : 0;

  scene.show_balances("after", {from, to});
  int corrected_moves = 0;
  for (const auto& e : scene.entries(memo)) corrected_moves += e.amount == 300'000 ? 1 : 0;
  if (status >= 200 && status < 300 && corrected_moves == 0) {
    scene.damage("The teller saw " + status_line(status) + " and tells the customer 300,000 KRW left; 200,000 did.");
    return {true, "the corrected 300,000 KRW was answered " + std::to_string(status) +
                      " and never ran; the ledger holds the 200,000"};
  }
  return {false, "the corrected 300,000 KRW was answered " + std::to_string(status) +
                     (status == 422 ? ": the teller knows the key is taken, nobody is misled" : "")};
}

Outcome simultaneous_retries(Scene& scene, const Outcome* first_telling) {
  auto [alice, from, to] = scene.client_with_two_accounts("alice", 1'000'000, "USD");
  scene.show_balances("before", {from, to});

  // The race is probabilistic: keep sending bursts until one moves money twice (or the bound is reached).
  // The second telling sends as many bursts as the first one needed, so the two are comparable.
  const int bursts = first_telling ? std::max(first_telling->rounds, 1) : kMaxBursts;
  scene.step("Alice double-taps Pay while her client library also retries: " + std::to_string(kCopiesPerBurst) +
             " copies of one request (one key, one body) arrive together. Each burst is a new payment, "
             "up to " + std::to_string(bursts) + " of them.");
  scene.note("> " + std::to_string(kCopiesPerBurst) +
             " x POST /transfers (as alice), each burst with its own key; all but the last byte sent, "
             "then the last bytes together");
  int sent = 0, duplicated = 0, worst = 0;
  int quiet_from = 0;  // the first of the quiet bursts not shown yet
  auto show_quiet_bursts = [&](int last) {
    if (quiet_from == 0) return;
    scene.note("< bursts " + std::to_string(quiet_from) + " to " + std::to_string(last) + ": the money moved once each");
    quiet_from = 0;
  };
  for (int burst = 1; burst <= bursts; ++burst) {
    const std::string memo = "coffee #" + std::to_string(burst);
    auto pay = scene.transfer(alice, "tap-" + std::to_string(burst), transfer_body(from.id, to.id, 350, "USD", memo));
    std::string answers = tally(scene.send_together(pay, kCopiesPerBurst));
    ++sent;
    int moves = scene.moves(memo);
    std::string line = "< burst " + std::to_string(burst) + ": " + answers + "; the money moved " + times(moves);
    if (moves > 1) {
      show_quiet_bursts(burst - 1);
      ++duplicated;
      worst = std::max(worst, moves);
      scene.damage(line);
      if (!first_telling) break;  // shown: the first telling stops at the first double payment
    } else if (burst <= kBurstsShownInFull || moves != 1) {
      show_quiet_bursts(burst - 1);
      scene.note(line);
    } else if (quiet_from == 0) {
      quiet_from = burst;
    }
  }
  show_quiet_bursts(sent);
  scene.show_balances("after", {from, to});
  if (duplicated > 0 && !first_telling)
    return {true, "it took " + std::to_string(sent) + " bursts: the last one moved the money " + times(worst) +
                      " for one intent", sent};
  if (duplicated > 0)
    return {true, std::to_string(duplicated) + " of " + std::to_string(sent) + " bursts moved the money more than once",
            sent};
  return {false, "every one of " + std::to_string(sent) + " bursts (" + std::to_string(sent * kCopiesPerBurst) +
                     " requests) moved the money once", sent};
}

}  // namespace grader
