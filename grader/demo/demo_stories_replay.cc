// demo_stories_replay.cc: the stories of what a repeat is answered (stage 4 recomputes it), to whom
// (stage 5's keys are global) and for how long (stage 6's published retention). docs/teach/the-day.md "The day" (the show);
// "Stage 4: What it still gets wrong", "Stage 5: What it still gets wrong", "Stage 6: The design".
#include <nlohmann/json.hpp>

#include "grader/demo/demo_stories.h"

namespace grader {
namespace {

// The members of two JSON answers that differ: "from_balance_after 8500, then 7500; ...".
std::string differences(const std::string& first, const std::string& second) {
  auto a = nlohmann::json::parse(first, nullptr, false);
  auto b = nlohmann::json::parse(second, nullptr, false);
  if (!a.is_object() || !b.is_object()) return "the bodies differ";
  std::string out;
  for (const auto& [name, value] : a.items())
    if (!b.contains(name) || b[name] != value)
      out += (out.empty() ? "" : "; ") + name + " " + value.dump() + ", then " + (b.contains(name) ? b[name].dump() : "absent");
  return out.empty() ? "the same members, spelled differently" : out;
}

int status_of(const Exchange& x) { return x.response ? x.response->status : 0; }

}  // namespace

Outcome recomputed_response(Scene& scene, const Outcome*) {
  auto [alice, from, to] = scene.client_with_two_accounts("alice", 10'000, "USD");
  const auto rent = scene.transfer(alice, "rent-2026-03", transfer_body(from.id, to.id, 1'500, "USD", "rent"));
  const auto groceries = scene.transfer(alice, "groceries-17", transfer_body(from.id, to.id, 1'000, "USD", "groceries"));
  scene.show_balances("before", {from, to});

  scene.step("Alice pays 15.00 USD rent. Her app files the answer as the receipt.");
  Exchange first = scene.send(rent);
  scene.step("Then she buys groceries, 10.00 USD, under their own key.");
  scene.send(groceries);
  scene.step("Her app's outbox re-sends the rent request (it restarted before marking it sent).");
  Exchange retry = scene.send(rent);
  scene.show_balances("after", {from, to});

  const int moves = scene.moves("rent");
  if (!first.response || !retry.response) return {true, "a request had no answer; nothing to compare"};
  const bool same = first.response->body == retry.response->body;
  const bool replayed = retry.response->header("Idempotent-Replayed").value_or("") == "true";
  if (!same) {
    scene.damage("One transfer, two receipts: " + differences(first.response->body, retry.response->body) + ".");
    return {true, "the retry's answer was rebuilt and differs from the first; the money moved " + times(moves)};
  }
  return {moves != 1, std::string("the retry's answer is the first one, byte for byte") +
                          (replayed ? ", marked Idempotent-Replayed: true" : "") + "; the money moved " +
                          times(moves)};
}

Outcome global_key_leak(Scene& scene, const Outcome*) {
  auto alice = scene.client("alice");
  auto bob = scene.client("bob");
  auto alice_from = scene.account(alice, 10'000, "USD");
  auto alice_to = scene.account(alice, 0, "USD");
  auto bob_from = scene.account(bob, 5'000, "USD");
  auto bob_to = scene.account(bob, 0, "USD");
  const std::string alice_body = transfer_body(alice_from.id, alice_to.id, 1'500, "USD", "rent");
  scene.show_balances("before", {alice_from, alice_to, bob_from, bob_to});

  scene.step("Alice pays 15.00 USD rent. Her app uses its order number as the key: order-1001.");
  scene.send(scene.transfer(alice, "order-1001", alice_body));

  scene.step("Bob's app numbers its orders the same way. His order 1001 pays 12.00 USD, under the same key string.");
  Exchange own = scene.send(scene.transfer(bob, "order-1001", transfer_body(bob_from.id, bob_to.id, 1'200, "USD", "invoice")));
  const int bob_moves = scene.moves("invoice");
  if (bob_moves == 0) scene.damage("Bob's transfer never ran: the key string was Alice's first.");

  scene.step("Bob sends Alice's request, under her key (he saw it in a shared log, or guessed the number).");
  Exchange snoop = scene.send(scene.transfer(bob, "order-1001", alice_body));
  // A leak: Bob was answered 2xx about an account he does not own.
  bool leaked = false;
  if (succeeded(snoop)) {
    auto j = nlohmann::json::parse(snoop.response->body, nullptr, false);
    leaked = j.is_object() && j.value("from_account", std::int64_t{0}) == alice_from.id;
  }
  if (leaked) scene.damage("Bob now holds Alice's receipt: her accounts, her amount, her balance after it.");
  else if (status_of(snoop) == 422)
    scene.note("   (in Bob's own scope the key is his invoice's, so another body under it is refused; Alice's "
               "receipt stays hers)");
  scene.show_balances("after", {alice_from, alice_to, bob_from, bob_to});

  std::string what = "bob's own transfer was answered " + std::to_string(status_of(own)) + " and moved " +
                     times(bob_moves) + "; alice's request sent by bob was answered " +
                     std::to_string(status_of(snoop)) + (leaked ? " with her receipt" : "");
  return {bob_moves != 1 || leaked || scene.moves("rent") != 1, what};
}

Outcome retry_after_expiry(Scene& scene, const Outcome*) {
  scene.step("Stage 6 publishes how long it keeps a key. Alice's app reads the policy.");
  HttpRequest policy_request{"GET", "/idempotency-policy", {}, ""};
  scene.show_request(policy_request);
  Exchange policy = exchange(scene.target().address(), policy_request);
  auto j = policy.response ? nlohmann::json::parse(policy.response->body, nullptr, false) : nlohmann::json();
  std::int64_t ttl = scene.target().facts().key_ttl_seconds;  // the --key-ttl the server was started with
  if (j.is_object() && j.contains("key_ttl_seconds") && j["key_ttl_seconds"].is_number_integer()) {
    ttl = j["key_ttl_seconds"].get<std::int64_t>();
    scene.note("< " + status_line(policy.response->status));
    scene.note("< {\"key_ttl_seconds\":" + std::to_string(ttl) + ", \"rule\":" +
               j.value("rule", nlohmann::json()).dump() + ", ...}");
  } else {
    scene.show_answer(policy);
    scene.damage("No policy is published: the client can only guess. Assuming the --key-ttl of the command line, " +
                 std::to_string(ttl) + " s.");
  }

  auto [alice, from, to] = scene.client_with_two_accounts("alice", 10'000, "USD");
  const std::string memo = "rent";
  const auto rent = scene.transfer(alice, "rent-2026-03", transfer_body(from.id, to.id, 1'500, "USD", memo));
  scene.show_balances("before", {from, to});

  scene.step("Alice pays 15.00 USD rent; her gateway gives up before the answer comes.");
  lose_slow_answer(scene, rent, memo);

  const std::int64_t early = ttl / 2;
  scene.step("Her app retries " + std::to_string(early) + " s later, within the key's " + std::to_string(ttl) + " s.");
  scene.advance_clock(std::chrono::seconds(early));
  Exchange within = scene.send(rent);
  const bool replayed = within.response && within.response->header("Idempotent-Replayed").value_or("") == "true" &&
                        scene.moves(memo) == 1;

  scene.step("Her app backs off longer; the next retry comes " + std::to_string(ttl + 1) +
             " s after the first request, past the key's retention.");
  scene.advance_clock(std::chrono::seconds(ttl + 1 - early));
  scene.send(rent);
  scene.show_balances("after", {from, to});
  const int moves = scene.moves(memo);
  if (moves > 1) scene.damage("The key was forgotten, as published, and the retry paid the rent again.");
  scene.note("There is no later stage: the server kept its word. The fix is a policy: keep keys longer than any "
             "client retries (docs/learn/stage-6-scope-ttl.md \"Stage 6: scope and retention\", the rule).");
  return {replayed && moves == 2, std::string("within the TTL the retry was ") +
                                      (replayed ? "a replay" : "NOT a replay") + "; after it the money moved " +
                                      times(moves) + " in all"};
}

}  // namespace grader
