// checks_stage6.cc: stage 6, scope and retention. docs/learn/stage-6-scope-ttl.md "Stage 6: scope and retention".
//
// A key belongs to (client, endpoint, key): another client's identical key is another request, and so
// is the same key on another endpoint. A key is remembered for --key-ttl seconds (lab clock), and
// GET /idempotency-policy tells clients all of it. And an idle server rests between its sweeps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <optional>
#include <thread>

#include "grader/base/process_memory.h"
#include "grader/checks/check_helpers.h"
#include "grader/checks/refusals.h"
#include "grader/record/truth.h"

namespace grader {
namespace {

// Margin around the TTL, so rounding in the server's clock does not decide the check.
constexpr std::int64_t kTtlMarginMs = 2'000;
// The key-lifetime edges run on servers of their own whose TTL is shorter than (or as short as) the
// lease, which the usual flags (--key-ttl far longer than --lease) never show.
const ServerFacts kTtlShorterThanLease{.lease_seconds = 30, .key_ttl_seconds = 1};
const ServerFacts kTtlAndLeaseShort{.lease_seconds = 1, .key_ttl_seconds = 1};
// Flags no server has by default, so a policy written as constants shows (stage6.policy-follows-flags).
const ServerFacts kOtherFlags{.lease_seconds = 7, .key_ttl_seconds = 4'321};
// Real time for a sweeper that runs once a second (stage 6's does) to have had its turn.
constexpr std::chrono::milliseconds kOneSweep{1'200};
// How long the first request sleeps in each: past the sweep and the repeat that follows it.
constexpr int kHeldFirstDelayMs = 1'800;
constexpr int kOutlivedFirstDelayMs = 800, kNextLifeDelayMs = 1'000;


// How a success shows that another request's key decided this one, or "" if the answer is this request's own:
// it names the first request's ledger entry, source account or kind. An answer whose body is its own but that
// says Idempotent-Replayed: true is no leak: it is a first answer marked a replay (expect_not_marked_replay).
std::string leak_in(const Exchange& x, const Exchange& first, const Intent& mine, const Intent& theirs) {
  if (!is_success(x)) return "";
  if (entry_id(x) && entry_id(x) == entry_id(first))
    return "it names ledger entry " + std::to_string(*entry_id(x)) + ", the first request's";
  auto j = nlohmann::json::parse(x.response->body, nullptr, false);
  if (j.is_object() && mine.from != theirs.from && j.value("from_account", nlohmann::json()) == theirs.from)
    return "it moves money from account " + std::to_string(theirs.from) + ", the first request's";
  const std::string kind = mine.path == "/transfers" ? "transfer" : "payout";
  if (j.is_object() && j.contains("kind") && j["kind"].is_string() && j["kind"] != kind)
    return "it is a " + j["kind"].get<std::string>() + ", the first request's, not a " + kind;
  return "";
}

// The second request got the first one's answer: a scope leak, shown with what came back. Its intent is left
// out of the audit, which would only see a success whose money never moved (a lost write): the same fact,
// without its cause.
void report_leak(CheckRun& run, Intent& mine, const std::string& whose, const std::string& leak, const Attempt& a,
                 const Exchange& x, const std::string& expected) {
  mine.audited = false;
  run.fail(Anomaly::ScopeLeak, whose + ": " + leak, &a, &x, expected);
}

// Bob sends Alice's key. `same_body`: Alice's very body (her account: not his); else his own transfer.
void foreign_client(CheckRun& run, bool same_body) {
  auto [alice, a1, a2] = client_with_two_accounts(run, "alice");
  auto [bob, b1, b2] = client_with_two_accounts(run, "bob");
  Intent& hers = run.world().transfer(*alice, *a1, *a2, affordable_amount(run, *a1));
  hers.expect_moves = 1;
  Exchange first = run.settle(hers.attempt());
  run.expect_status(first, hers.attempt(), {201});

  Intent& his = same_body ? run.world().transfer(*bob, *a1, *a2, hers.amount)
                          : run.world().transfer(*bob, *b1, *b2, affordable_amount(run, *b1));
  his.key = hers.key;
  if (same_body) {
    his.tag = hers.tag;  // the same memo: the auditor cannot tell the two apart, so this check judges his
    his.memo = hers.memo;
    his.body = hers.body;
    his.audited = false;
  } else {
    his.expect_moves = 1;
  }
  Attempt a = his.attempt();
  Exchange x = run.settle(a);
  if (same_body) {
    bool leaked = x.response && first.response && x.response->body == first.response->body;
    run.expect_status(x, a, {404}, "not-found", Anomaly::ScopeLeak);
    if (leaked) run.add_to_last_finding(": it is alice's stored response, shown to bob");
    if (run.moves(hers) != 1)
      run.fail(Anomaly::DoubleApply, "alice's transfer moved " + std::to_string(run.moves(hers)) + " times");
  } else if (std::string leak = leak_in(x, first, his, hers); !leak.empty()) {
    report_leak(run, his, "bob's own transfer, sent with alice's key, got alice's answer", leak, a, x,
                "201: bob's own transfer, from his account " + std::to_string(b1->id));
  } else if (run.expect_status(x, a, {201}, "", Anomaly::ScopeLeak)) {
    expect_not_marked_replay(run, a, x);
  }
}

void endpoint_scope(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& transfer = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  Intent& payout = run.world().payout(*alice, *from, affordable_amount(run, *from));
  payout.key = transfer.key;
  transfer.expect_moves = payout.expect_moves = 1;
  Exchange first = run.settle(transfer.attempt());
  run.expect_status(first, transfer.attempt(), {201});
  const Attempt a = payout.attempt();
  Exchange x = run.settle(a);
  if (std::string leak = leak_in(x, first, payout, transfer); !leak.empty())
    report_leak(run, payout, "the payout, sent with the transfer's key, got the transfer's answer", leak, a, x,
                "201: the payout's own ledger entry");
  else if (run.expect_status(x, a, {201}, "", Anomaly::ScopeLeak))
    expect_not_marked_replay(run, a, x);
}

// Does this server's lease end when the lab clock passes it? A slow request, the lab clock moved past its
// lease, and a retry: taken over (201) if the server reads the lab clock, 409 if it keeps time of its own.
// Asked only once a TTL was not honoured, to tell which of the two faults it is. A retry answered after the
// first request had finished says nothing about the lease (a loaded machine: seen as the mutant
// lease-real-time credited stage 6, in a whole run at load 5): the round is made again with a longer sleep
// (with_growing_delay); no answer at all when every round came late.
std::optional<bool> lease_ends_on_lab_clock(CheckRun& run, const TwoAccounts& accounts) {
  std::optional<bool> on_lab_clock;
  with_growing_delay(run, [&](int times) {
    auto [probe, sent, first] = send_slow_first(run, accounts, grown_delay(kSlowFirstDelayMs, times));
    // A question about the lease, not a payment the check sees through: its money may move once, or not at
    // all (a lease that never ends leaves it in progress), and that is the finding about the lease, not another.
    probe.expect_moves.reset();
    std::this_thread::sleep_for(kRepeatAfter);
    run.advance_past_lease();
    Exchange retry = run.send(probe.attempt());
    if (is_success(retry)) run.observe(probe);
    Exchange original = first.get();
    if (is_success(original)) run.observe(probe);
    if (const RepeatTiming timing = timing_of(retry, original); timing != RepeatTiming::InFlight) return timing;
    on_lab_clock = !is_in_progress(retry);
    return RepeatTiming::InFlight;
  });
  return on_lab_clock;
}

void key_ttl(CheckRun& run) {
  const std::int64_t ttl_ms = run.target().facts().key_ttl_seconds * 1000;
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.max_moves = pay.expect_moves.emplace(2);  // once now, once more after the key expired
  const Attempt again = pay.attempt();
  Exchange first = run.settle(again);
  run.expect_status(first, again, {201});
  // A control before the clock moves: a key not recognised even now says nothing about its TTL.
  Exchange control = run.settle(again);
  if (run.moves(pay) > 1)
    return run.add_finding({.anomaly = Anomaly::DoubleApply,
                            .what = "a repeat right after the first request, with the same key and body and before "
                                    "the lab clock moved, moved money again: the key was not recognised at all, so "
                                    "its TTL cannot be judged",
                            .sent = show_request(again),
                            .received = show_exchange(control),
                            .expected = "the first response replayed:\n" + show_exchange(first),
                            .hint = "a repeat of a completed key is answered from the key table, never executed again",
                            .intent = pay.id});

  run.advance_clock_ms(ttl_ms - kTtlMarginMs, "just before the key's TTL");
  Exchange before = run.settle(again);
  // The ledger says whether it executed again; an answer in other words than the first (no entry id) is a
  // replay that differs, judged below, not money moved twice.
  if (run.moves(pay) > 1) {
    // What follows would judge the key's second life: this one is the finding. Which lesson it is, the
    // control said: a key still in progress after its request finished was never completed, so the clock
    // ended its lease (stage 4); a completed key was forgotten by the clock, its retention (stage 6).
    const bool never_completed = is_in_progress(control);
    return run.add_finding(
        {.anomaly = Anomaly::DoubleApply,
         .what = never_completed
                     ? "a key still answered 409 in progress after its request had finished (the repeat right after "
                       "it), and once the lab clock passed its lease the same request moved money again: the key "
                       "was never completed, so its claim ran out instead of being kept"
                     : "the key was forgotten before its TTL: " + std::to_string((ttl_ms - kTtlMarginMs) / 1000) +
                           " s after its first use (lab clock), under its " + std::to_string(ttl_ms / 1000) +
                           " s TTL, the same request moved money again",
         .sent = show_request(again),
         .received = show_exchange(before),
         .expected = "the first response replayed:\n" + show_exchange(first),
         .hint = never_completed
                     ? "complete the key (state completed, with its outcome) in the transaction that moves the money"
                     : "a finished key expires --key-ttl after its first use, never with its lease: look at which "
                       "of the two the claim stores as the key's expiry, and at the parentheses of the expiry "
                       "condition",
         .intent = pay.id,
         .fixed_by = never_completed ? 4 : 6});
  }
  if (!is_success(before) || entry_id(before) != entry_id(first) || run.moves(pay) != 1)
    run.fail(Anomaly::ReplayMismatch, "before its TTL the key did not replay the first transfer", &again, &before,
             "the first response replayed:\n" + show_exchange(first));

  run.advance_clock_ms(2 * kTtlMarginMs, "just past the key's TTL");
  Exchange after = run.settle(again);
  // A new transfer of its own that says Idempotent-Replayed: true honoured nothing: it is a first answer
  // marked a replay.
  if (!is_success(after) || entry_id(after) == entry_id(first)) {
    // Unknown (every round came late) is taken as on the lab clock: the finding then claims no cause of the clock's.
    const bool lease_on_lab_clock = lease_ends_on_lab_clock(run, {alice, from, to}).value_or(true);
    run.fail(Anomaly::ExpiredKeyHonoured,
             lease_on_lab_clock
                 ? "after its TTL the same request was not a new transfer"
                 : "after its TTL on the lab clock the same request was not a new transfer, and a key's lease did "
                   "not end on the lab clock either (a retry past it still heard 409): either its keys have no "
                   "lease and no TTL at all, or the server keeps time on a clock of its own, which POST "
                   "/admin/clock does not move (the lab clock is what the TTL and the lease are read from)",
             &again, &after,
             "201: a new transfer (the key expired " + std::to_string(run.target().facts().key_ttl_seconds) +
                 " s after its first use)");
    // Tried: a claim's lease did not end on the lab clock either, so the clock is the first thing to fix, and
    // the lease is where the lab clock is taught (stage 4); a TTL on that clock comes after it.
    if (!lease_on_lab_clock)
      run.give_last_finding_lesson(lesson_teaching("lease"),
                                   "read every time (the lease, the TTL) from the lab clock, which POST /admin/clock "
                                   "moves");
  } else
    expect_not_marked_replay(run, again, after);
}

// A key whose TTL has passed while its first request still holds the lease is still in progress: deleting
// it (in claim() or in the sweeper) would let a repeat start the key's next life while the first one can
// still complete.
void expired_key_still_held(CheckRun& run) {
  const TwoAccounts accounts = client_with_two_accounts(run, "alice");
  const bool seen = with_growing_delay(run, [&](int times) {
    auto [pay, sent, first] = send_slow_first(run, accounts, grown_delay(kHeldFirstDelayMs, times));
    std::this_thread::sleep_for(kRepeatAfter);
    // The control: before the TTL passes the key is held. Only then can its expiry be blamed.
    Attempt control = pay.attempt();
    if (Exchange held = run.send(control); !is_in_progress(held)) {
      const Anomaly early = anomaly_of_early_answer(run, held, pay);
      Exchange original = first.get();
      if (is_success(original)) run.observe(pay);
      if (auto timing = timing_of(held, original); timing != RepeatTiming::InFlight) return timing;
      expect_held(run, held, control, early, "before the lab clock moved");
      return RepeatTiming::InFlight;
    }
    run.advance_clock_ms(run.target().facts().key_ttl_seconds * 1000 + kTtlMarginMs,
                         "past the key's TTL, well within its lease");
    std::this_thread::sleep_for(kOneSweep);  // the TTL has passed in real time too, and a sweep has run
    Attempt repeat = pay.attempt();
    Exchange x = run.send(repeat);
    const Anomaly early = anomaly_of_early_answer(run, x, pay);  // the ledger now, while the first sleeps
    Exchange original = first.get();
    if (is_success(original)) run.observe(pay);
    if (auto timing = timing_of(x, original); timing != RepeatTiming::InFlight) {
      pay.expect_moves.reset();  // its key was completed and past its TTL: the repeat was a new request
      pay.max_moves = 2;
      return timing;
    }
    if (!is_in_progress(x))
      run.fail(early,
               "the key's TTL had passed, but its first request was still running within its lease, and the "
               "repeat was not told so, though a repeat before the TTL passed was: an expired key stays in "
               "progress until its lease runs out",
               &repeat, &x, "409 request-in-progress");
    return RepeatTiming::InFlight;
  });
  if (!seen) fail_held_repeat(run, "a key past its TTL whose request still runs within its lease answers 409 at once");
}

// A request slower than both its lease and its key's TTL must not complete the key's next life: after the
// key expired, the same key with another body is a new request, and only it may complete.
void outlived_key(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& old = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  old.max_moves = 1;  // fenced out (nothing) on a server that started the next life; else once
  Intent& next = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from) + 1);
  next.key = old.key;
  next.expect_moves = 1;
  Attempt slow = old.attempt().with_header(kLabDelay, std::to_string(kOutlivedFirstDelayMs));
  auto first = send_in_background(run, slow);
  std::this_thread::sleep_for(kRepeatAfter);
  run.advance_clock_ms(
      std::max(run.target().facts().lease_seconds, run.target().facts().key_ttl_seconds) * 1000 + kTtlMarginMs,
      "past the key's lease and its TTL, while its first request sleeps");
  Attempt reuse = next.attempt().with_header(kLabDelay, std::to_string(kNextLifeDelayMs));
  auto second = std::async(std::launch::async, [&run, reuse] {
    auto sent = std::chrono::steady_clock::now();
    Exchange x = run.send(reuse);
    return std::pair{x, std::chrono::steady_clock::now() - sent};
  });
  Exchange outlived = first.get();
  auto [started, took] = second.get();
  if (is_success(outlived)) run.observe(old);
  if (is_success(started)) run.observe(next);
  // Lab-Delay-Ms sleeps only after a claim, so a slow answer means the next life had begun while the old
  // request slept. A quick one (409 or 422) means the server still counted the old life: its TTL or lease
  // keeps real time, so there is no fence to judge, and the next request waits for the old life to end.
  const bool next_life_began = took >= std::chrono::milliseconds(kNextLifeDelayMs);
  if (next_life_began && is_success(outlived))
    run.fail(Anomaly::FenceBroken,
             "the request that outlived its key was told success after the key's next life had begun", &slow,
             &outlived, "409: its claim ended with its key's life; only the next life's request completes");
  if (is_success(started)) return;  // the next life's own transfer: done (a repeat now could outlive the TTL)
  if (!next_life_began) {  // let the old life end on the server's real clock too
    run.wait_out_lease_in_real_time();
    std::this_thread::sleep_for(kOneSweep);
  }
  const Attempt retry = next.attempt();
  Exchange done = run.settle(retry, Settle{.lease_takeover = true});
  if (is_success(done)) run.observe(next);
  run.expect_status(done, retry, {200, 201}, "", anomaly_of_wrong_answer(done, Anomaly::NotExecuted));
  if (is_success(done) && entry_id(done) && entry_id(outlived) && entry_id(done) == entry_id(outlived))
    run.fail(Anomaly::FenceBroken, "the key's next life answers with the transfer of the request that outlived it",
             &retry, &done, "the next life's own transfer (amount " + std::to_string(next.amount) + ")");
}

// A published member that describes another design than stage 6's, truthfully or not, is named as the
// requirement it misses, not as a policy that misdescribes its server: keys scoped by less than (client,
// endpoint, key) are a scope leak, keys that never expire (a TTL of null or 0) are kept forever, claims
// without a lease (null or 0) are held for ever. Returns false (and adds nothing) for any other value.
bool fail_if_other_design(CheckRun& run, const std::string& member, const nlohmann::json& value, const Finding& base) {
  const std::set<std::string> stage6_scope{"client", "endpoint", "key"};
  std::set<std::string> scope;
  if (member == "scope" && value.is_array())
    for (const auto& part : value)
      if (part.is_string() && stage6_scope.count(part.get<std::string>())) scope.insert(part.get<std::string>());
  Finding f = base;
  if (member == "scope" && value.is_array() && scope.size() == value.size() && scope.size() < stage6_scope.size()) {
    f.anomaly = Anomaly::ScopeLeak;
    f.what = "the policy scopes keys by " + value.dump() + ": stage 6 scopes them by client, endpoint and key, "
             "so another client's or endpoint's same key is another request";
    f.hint = "a key belongs to (client, endpoint, key): in the key table's UNIQUE constraint and every lookup";
  } else if (member == "key_ttl_seconds" && (value.is_null() || (value.is_number() && value.get<double>() <= 0))) {
    f.anomaly = Anomaly::ExpiredKeyHonoured;
    f.what = "the policy says keys never expire (key_ttl_seconds " + value.dump() + "): stage 6 forgets a key "
             "--key-ttl seconds after its first use, so storage does not grow forever";
    f.hint = "store expires_at with each key (first use + --key-ttl, lab clock) and sweep expired rows";
  } else if (member == "lease_seconds" && (value.is_null() || (value.is_number() && value.get<double>() <= 0))) {
    f.anomaly = Anomaly::StuckKey;
    f.what = "the policy says an in-progress claim has no lease (lease_seconds " + value.dump() + "): stage 4 gives "
             "every claim a lease of --lease seconds on the lab clock, after which a retry takes the key over; "
             "without one, a request that crashed holds its key for ever";
    f.hint = "claim with locked_until = now + --lease (lab clock); a retry past it takes the claim over, fenced; "
             "publish the same --lease as lease_seconds";
  } else {
    return false;
  }
  run.add_finding(std::move(f));
  return true;
}

// GET /idempotency-policy compared, member by member, with `want`. Returns the policy, or null after a
// finding when it is no JSON object.
nlohmann::json compare_policy(CheckRun& run, const ClientInfo& who, const nlohmann::json& want,
                              const std::string& started_with) {
  auto res = run.api().as_client(who.token, "GET", "/idempotency-policy");
  const std::string got = std::to_string(res.status) + " " + res.body.substr(0, 400);
  const Finding base{.anomaly = Anomaly::PolicyMismatch,
                     .what = "",
                     .operation = "GET /idempotency-policy",
                     .received = got,
                     .expected = want.dump()};
  if (res.status != 200 || res.media_type() != "application/json") {
    Finding f = base;
    f.what = base.operation + " answered " + std::to_string(res.status);
    f.expected = "200 " + want.dump();
    run.add_finding(std::move(f));
    return nullptr;
  }
  nlohmann::json j = json_body_or_throw(res, base.operation);
  if (!j.is_object()) j = nlohmann::json::object();
  for (const auto& [member, value] : want.items()) {
    const nlohmann::json published = j.value(member, nlohmann::json());
    if (published == value || fail_if_other_design(run, member, published, base)) continue;
    Finding f = base;
    f.what = "\"" + member + "\" is " + (j.contains(member) ? published.dump() : "missing") + ", the server " +
             started_with + " " + value.dump();
    run.add_finding(std::move(f));
  }
  return j;
}

// The policy lists what the contract stores (201 and the bank's refusals), so a promise it does not keep is
// the behaviour's flaw, not the policy's: a key still in progress was never completed (stage 4's lesson), any
// other answer is no stored replay (stage 5's). Called right after the finding; a 422 to the very bytes was
// not that finding but the fingerprint's (CheckRun::fail), which has its lesson already.
void credit_the_replay(CheckRun& run, const Attempt& same, const Exchange& again) {
  if (run.refused_as_another(same, again)) return;
  if (is_in_progress(again))
    run.give_last_finding_lesson(4, "complete the key with its outcome in the transaction that decides it");
  else
    run.give_last_finding_lesson(5, "store the first answer (status, the headers a client reads, body) with the key, "
                                    "and answer every repeat with those bytes and the replay header");
}

// A policy that lists 201 promises that a repeat of a completed transfer is answered with it again, marked
// with its replay_header: one transfer and one repeat try the promise (stage 5's checks judge the bytes).
void expect_201_replayed(CheckRun& run, const TwoAccounts& accounts, const std::string& header) {
  Intent& pay = run.world().transfer(*accounts.owner, *accounts.from, *accounts.to, affordable_amount(run, *accounts.from));
  pay.expect_moves = 1;
  if (!is_success(run.settle(pay.attempt()))) return;  // a transfer that fails is the contract checks' to name
  const Attempt same = pay.attempt();
  Exchange again = run.settle(same);
  if (status_of(again) != 201 || !says_replayed(again, header)) {
    run.fail(Anomaly::PolicyMismatch,
             "the policy lists 201 in stored_statuses, but a repeat of a completed transfer was answered " +
                 std::to_string(status_of(again)) +
                 (says_replayed(again, header) ? "" : " without \"" + header + ": true\" (its replay_header)"),
             &same, &again, "201, the first response, with " + header + ": true");
    credit_the_replay(run, same, again);
  }
}

void policy(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  const auto& facts = run.target().facts();
  nlohmann::json want = {{"scope", {"client", "endpoint", "key"}},
                         {"key_ttl_seconds", facts.key_ttl_seconds},
                         {"lease_seconds", facts.lease_seconds},
                         {"replay_header", "Idempotent-Replayed"}};
  nlohmann::json j = compare_policy(run, *alice, want, "was started with (or behaves as)");
  if (!j.is_object()) return;
  const std::string got = j.dump().substr(0, 400);
  bool stores_201 = false;
  if (j.contains("stored_statuses") && j["stored_statuses"].is_array())
    for (const auto& s : j["stored_statuses"]) stores_201 = stores_201 || s == 201;
  if (!stores_201)
    run.add_finding({.anomaly = Anomaly::PolicyMismatch,
                     .what = "\"stored_statuses\" does not list 201",
                     .operation = "GET /idempotency-policy",
                     .received = got});
  else
    expect_201_replayed(run, {alice, from, to},
                        j.contains("replay_header") && j["replay_header"].is_string()
                            ? j["replay_header"].get<std::string>()
                            : "Idempotent-Replayed");
  // How the fingerprint is described is free (a name, or an object with algorithm and input); it must be there.
  if (!j.contains("fingerprint") || !(j["fingerprint"].is_string() || j["fingerprint"].is_object()))
    run.add_finding({.anomaly = Anomaly::PolicyMismatch,
                     .what = "\"fingerprint\" is missing (a string or an object)",
                     .operation = "GET /idempotency-policy",
                     .received = got});
}

// The policy follows the flags: on a server of its own started with a lease and a TTL no server has by
// default (kOtherFlags), the policy publishes those, not constants written into the code.
void policy_follows_flags(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  const auto& facts = run.target().facts();
  compare_policy(run, *alice,
                 {{"key_ttl_seconds", facts.key_ttl_seconds}, {"lease_seconds", facts.lease_seconds}},
                 "was started with --lease " + std::to_string(facts.lease_seconds) + " --key-ttl " +
                     std::to_string(facts.key_ttl_seconds) + ": it should say");
}

// GET /idempotency-policy as the client `who` reads it: a JSON object, or null when it is none (the policy
// check reports how it is wrong).
nlohmann::json published_policy(CheckRun& run, const ClientInfo& who) {
  auto res = run.api().as_client(who.token, "GET", "/idempotency-policy");
  auto j = nlohmann::json::parse(res.body, nullptr, false);
  return res.status == 200 && j.is_object() ? j : nlohmann::json();
}

// A policy that lists 503 among the stored outcomes: does the server keep a 503? A Lab-Fail: busy, then the same
// key and body once. Kept, the policy is true and the server breaks stage 4's rule that a 503 releases the key;
// not kept, the policy promises what the server does not do.
void judge_listed_503(CheckRun& run, const std::string& header) {
  auto [owner, from, to] = client_with_two_accounts(run, "carol");
  Intent& pay = run.world().transfer(*owner, *from, *to, affordable_amount(run, *from));
  pay.max_moves = 1;  // once, if the retry runs
  const Attempt busy = pay.attempt().with_header(kLabFail, "busy");
  if (!run.expect_status(run.send(busy), busy, {503}, "service-unavailable")) return;  // Lab-Fail not honoured
  const Attempt same = pay.attempt();
  Exchange again = run.send(same);  // once: settle() would retry a 503 until its patience ran out
  if (status_of(again) == 503 && says_replayed(again, header))
    run.add_finding({.anomaly = Anomaly::WrongStatus,
                     .what = "the policy lists 503 in stored_statuses, and the server does keep it: after a Lab-Fail: "
                             "busy the same key and body were answered the stored 503 again. A 503 is no outcome: "
                             "nothing ran, and the retry it asks for must run",
                     .sent = show_request(same),
                     .received = show_exchange(again),
                     .expected = "the retry runs (201): a 503 releases the key",
                     .hint = "on a failure that is not the request's own, roll back and release the claim; list "
                             "only 201 and the bank's refusals in stored_statuses",
                     .intent = pay.id});
  else
    run.fail(Anomaly::PolicyMismatch,
             "the policy lists 503 in stored_statuses, but after a Lab-Fail: busy the same key and body were "
             "answered " + (again.response ? std::to_string(status_of(again)) : std::string("nothing")) +
                 ", not the stored 503",
             &same, &again, "a policy that lists only what the server stores");
}

// What the policy says is stored must be what the server stores, status by status: each refusal of the bank
// whose status is listed in stored_statuses is replayed to the same key and body, with the policy's
// replay_header, even after its cause is gone; one not listed is answered afresh (and runs, once its cause is
// gone). A listed status no key can be completed with is a promise nobody keeps.
void policy_stored_outcomes(CheckRun& run) {
  ClientInfo& alice = run.world().client("alice");
  nlohmann::json j = published_policy(run, alice);
  if (!j.is_object() || !j.contains("stored_statuses") || !j["stored_statuses"].is_array())
    return run.fail(Anomaly::PolicyMismatch, "GET /idempotency-policy publishes no \"stored_statuses\" array");
  std::set<int> listed;
  for (const auto& status : j["stored_statuses"])
    if (status.is_number_integer()) listed.insert(status.get<int>());
  const std::string header = j.contains("replay_header") && j["replay_header"].is_string()
                                 ? j["replay_header"].get<std::string>()
                                 : "Idempotent-Replayed";

  std::set<int> storable{201};  // what a key can be completed with (docs/learn/stage-5-replay.md "Stage 5: replay the stored response", what is stored)
  for (RefusalKind kind : kRefusalKinds) {
    Refusal refusal = set_up_refusal(run, alice, kind);
    storable.insert(refusal.status);
    const bool stored = listed.count(refusal.status) > 0;
    const std::string status = std::to_string(refusal.status);
    Intent& refused = *refusal.intent;
    if (!stored && refusal.remove_cause) refused.max_moves = refused.expect_moves.emplace(1);  // it runs then
    run.expect_status(run.settle(refused.attempt()), refused.attempt(), {refusal.status}, refusal.problem_type);
    if (refusal.remove_cause) refusal.remove_cause();
    const Attempt same = refused.attempt();
    Exchange again = run.settle(same);  // the same key and body, now that the cause is gone (if it can be)
    const bool replayed = status_of(again) == refusal.status && says_replayed(again, header);
    if (stored && !replayed) {
      run.fail(Anomaly::PolicyMismatch,
               "the policy lists " + status + " in stored_statuses, but the same key and body " +
                   (is_success(again) ? std::string("ran again")
                                      : "were answered " + std::to_string(status_of(again)) + " without \"" +
                                            header + ": true\" (its replay_header)"),
               &same, &again, status + ", the stored outcome, replayed");
      credit_the_replay(run, same, again);
    } else if (!stored && (replayed || (refusal.remove_cause && !is_success(again))))
      run.fail(Anomaly::PolicyMismatch,
               "the policy does not list " + status + " in stored_statuses, but the " + status + " was kept", &same,
               &again,
               refusal.remove_cause ? "201: an outcome that is not stored does not bind the key"
                                    : status + " answered afresh: an outcome that is not stored is not replayed");
  }
  for (int status : listed) {
    if (storable.count(status)) continue;
    if (status == 503) {  // the one such answer the grader can cause: tried, not assumed
      judge_listed_503(run, header);
      continue;
    }
    run.fail(Anomaly::PolicyMismatch,
             "the policy lists " + std::to_string(status) + " in stored_statuses, which the contract never stores "
             "(a key is completed only with a 201 or a refusal of the bank), and no request the grader can make is "
             "answered " + std::to_string(status) + ", so the promise was not tried");
  }
}

// The Retry-After of a 409 in progress is the policy's retry_after_seconds: a client may read either.
void policy_retry_after(CheckRun& run) {
  const TwoAccounts accounts = client_with_two_accounts(run, "alice");
  nlohmann::json j = published_policy(run, *accounts.owner);
  // null says "no Retry-After": judged against the 409 itself below, as a number is.
  const bool says_none = j.is_object() && j.contains("retry_after_seconds") && j["retry_after_seconds"].is_null();
  if (!says_none &&
      (!j.is_object() || !j.contains("retry_after_seconds") || !j["retry_after_seconds"].is_number_integer()))
    return run.fail(Anomaly::PolicyMismatch,
                    "GET /idempotency-policy publishes no \"retry_after_seconds\" (a whole number of seconds)");
  const std::int64_t published = says_none ? -1 : j["retry_after_seconds"].get<std::int64_t>();
  const bool seen = with_growing_delay(run, [&](int times) {
    auto [pay, sent, first] = send_slow_first(run, accounts, grown_delay(kSlowFirstDelayMs, times));
    std::this_thread::sleep_for(kRepeatAfter);  // the first has claimed the key and sleeps
    const Attempt repeat = pay.attempt();
    Exchange x = run.send(repeat);
    Exchange original = first.get();
    if (is_success(original)) run.observe(pay);
    // A first answer that is no success (a 503 of a machine too loaded, no answer) leaves the intent to its
    // client, who retries until an answer, as a client does: the auditor expects its money once.
    else run.settle(pay.attempt(), Settle{.lease_takeover = true});
    if (auto timing = timing_of(x, original); timing != RepeatTiming::InFlight) return timing;
    // Any other answer, and a Retry-After that is no whole number of seconds, is stage 4's to judge
    // (stage4.in-flight-repeat); this check compares the two numbers.
    const auto seconds = retry_after_seconds(x);
    if (is_in_progress(x) && says_none && !x.response->header("Retry-After"))  // truthful: the 409 is the flaw
      run.fail(Anomaly::ContractShape,
               "the 409 in progress has no Retry-After, as the policy's retry_after_seconds null says: the "
               "contract's 409 tells the client when to retry",
               &repeat, &x, "409 with Retry-After: <seconds>, the policy's retry_after_seconds the same number");
    else if (is_in_progress(x) && says_none)
      run.fail(Anomaly::PolicyMismatch,
               "the policy's retry_after_seconds is null, but the 409 in progress says Retry-After: " +
                   *x.response->header("Retry-After"),
               &repeat, &x, "retry_after_seconds " + x.response->header("Retry-After").value_or(""));
    else if (is_in_progress(x) && seconds && *seconds != published)
      run.fail(Anomaly::PolicyMismatch,
               "the 409 in progress says Retry-After: " + x.response->header("Retry-After").value_or("(none)") +
                   ", the policy's retry_after_seconds is " + std::to_string(published),
               &repeat, &x, "409 with Retry-After: " + std::to_string(published));
    return RepeatTiming::InFlight;
  });
  if (!seen)  // a repeat held in every round is stage 4's to judge
    run.add_caveat("every repeat was held until the first request had ended, so no 409 came to compare "
                   "(stage4.in-flight-repeat names that fault)");
}

// An idle server rests: its sweeper sleeps between sweeps. One whose loop never waits (a sweep repeated
// while it deletes nothing, a poll without a sleep) keeps a core busy while nobody asks anything. Judged
// from /proc, not by speed, on two measures, either of which is enough, in each of two windows of
// kIdleWindow (so that one pause of a garbage collector or of a JIT's compiler does not decide):
// - CPU time: a resting server uses a few milliseconds of a window, a spinning one a large share of it
//   however loaded the machine is;
// - waits: a loop that commits in its loop waits on the disk, so its CPU share falls when the disk or the
//   machine is busy (8% of a core beside two busy loops and a disk writer, measured; 35% on a quiet
//   machine), but it still gives up the CPU once per commit: 740-1,900 waits a second under that load,
//   15,000 on a quiet machine, where a resting server waits 2-5 times a second (its timers).
constexpr std::chrono::milliseconds kIdleWindow{1'000};
constexpr double kIdleCpuLimit = 0.1;     // of one core: a resting server uses well under 1%
constexpr double kIdleWaitsLimit = 200;   // a second: a resting server waits a few times (timers)
void idle_server_rests(CheckRun& run) {
  const pid_t group = run.target().process_group();
  if (group < 0) return run.add_caveat("with --url the server's processes are not the grader's: its CPU is not measured");
  double share = 1, waits_per_second = 1e9;   // the lowest of the two windows
  for (int window = 0; window < 2 && (share > kIdleCpuLimit || waits_per_second > kIdleWaitsLimit); ++window) {
    const std::int64_t cpu0 = group_cpu_ms(group), waits0 = group_waits(group);
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(kIdleWindow);
    const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    share = std::min(share, static_cast<double>(group_cpu_ms(group) - cpu0) / elapsed_ms);
    waits_per_second = std::min(waits_per_second, 1000.0 * static_cast<double>(group_waits(group) - waits0) / elapsed_ms);
  }
  char text[300];
  if (share > kIdleCpuLimit) {
    std::snprintf(text, sizeof text, "while no request came, in two windows of %.1f s, the server used %.0f%% of a "
                  "core or more (a resting one: under 1%%): something loops without waiting", kIdleWindow.count() / 1000.0, 100 * share);
    run.fail(Anomaly::IdleCpu, text);
  } else if (waits_per_second > kIdleWaitsLimit) {
    std::snprintf(text, sizeof text, "while no request came, in two windows of %.1f s, the server's threads waited "
                  "%.0f times a second or more (a resting one: a few): something loops, waiting only on the disk "
                  "or on a lock, never on a timer", kIdleWindow.count() / 1000.0, waits_per_second);
    run.fail(Anomaly::IdleCpu, text);
  }
}

}  // namespace

std::vector<Check> stage6_checks() {
  const DocRef chapter = stage_chapter(6);
  return {
      {.name = "stage6.foreign-same-body",
       .stage = 6,
       .title = "another client's same key and body gets its own 404, never the first response",
       .teaches = chapter,
       .hint = "scope keys by (client, endpoint, key), and look the key up only after authentication",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { foreign_client(r, true); }},
      {.name = "stage6.foreign-own-body",
       .stage = 6,
       .title = "another client's same key with its own body is its own transfer",
       .teaches = chapter,
       .hint = "scope keys by (client, endpoint, key)",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { foreign_client(r, false); }},
      {.name = "stage6.endpoint-scope",
       .stage = 6,
       .title = "the same key on /transfers and /payouts is two requests",
       .teaches = chapter,
       .hint = "the endpoint is part of the key's scope",
       .needs = Needs::Nothing,
       .run = endpoint_scope},
      {.name = "stage6.key-ttl",
       .stage = 6,
       .title = "before the TTL a repeat replays; after it the same request is a new transfer",
       .teaches = chapter,
       .hint = "expire keys --key-ttl seconds after first use, on the lab clock",
       .needs = Needs::Nothing,
       .run = key_ttl},
      {.name = "stage6.expired-key-held",
       .stage = 6,
       .title = "a key past its TTL whose first request still holds the lease is still in progress",
       .teaches = chapter,
       .hint = "delete an expired row only once it is completed or its lease has run out (claim and sweeper)",
       .needs = Needs::OwnServer,
       .run = expired_key_still_held,
       .own_server = kTtlShorterThanLease},
      {.name = "stage6.outlived-key",
       .stage = 6,
       .title = "a request slower than its lease and its key's TTL cannot complete the key's next life",
       .teaches = chapter,
       .hint = "name a claim by its row, never reuse an expired row: the next life is a new row",
       .needs = Needs::OwnServer,
       .run = outlived_key,
       .own_server = kTtlAndLeaseShort},
      {.name = "stage6.policy-stored-outcomes",
       .stage = 6,
       .title = "the statuses the policy says are stored are the ones replayed",
       .teaches = chapter,
       .hint = "publish in stored_statuses exactly the outcomes you complete the key with",
       .needs = Needs::Nothing,
       .run = policy_stored_outcomes},
      {.name = "stage6.policy-retry-after",
       .stage = 6,
       .title = "a 409 in progress says Retry-After: the policy's retry_after_seconds",
       .teaches = chapter,
       .hint = "publish the Retry-After the in-progress answer sends, from the same constant",
       .needs = Needs::Nothing,
       .run = policy_retry_after},
      {.name = "stage6.policy",
       .stage = 6,
       .title = "GET /idempotency-policy matches the flags and the behaviour",
       .teaches = chapter,
       .hint = "report scope, key_ttl_seconds, lease_seconds, fingerprint, stored_statuses, replay_header",
       .needs = Needs::Nothing,
       .run = policy},
      {.name = "stage6.idle-server-rests",
       .stage = 6,
       .title = "an idle server rests: it keeps no core busy while no request comes",
       .teaches = chapter,
       .hint = "let the sweeper sleep between sweeps (a timed wait that shutting down can cut short), and loop only while a batch was full",
       .needs = Needs::Nothing,
       .run = idle_server_rests},
      {.name = "stage6.policy-follows-flags",
       .stage = 6,
       .title = "GET /idempotency-policy publishes the --lease and --key-ttl the server was started with",
       .teaches = chapter,
       .hint = "read lease_seconds and key_ttl_seconds from the flags the server parsed, not from constants",
       .needs = Needs::OwnServer,
       .run = policy_follows_flags,
       .own_server = kOtherFlags},
  };
}

}  // namespace grader
