// soak_round.cc: see soak_round.h. The round's story: plan_round (the bank and its requests, all drawn
// before anything is sent), send_until_answered (one client) and supervise (the server's life) for the chaos,
// settle_the_rest, then judge_round (R1-R7).
#include "grader/soak/soak_round.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <thread>

#include "grader/checks/check_helpers.h"
#include "grader/wire/database_file.h"

namespace grader {
namespace {

// The round's bank: a few clients with two accounts each, so transfers cross accounts and clients.
constexpr int kMinClients = 2, kMaxClients = 3;
static_assert(kMinClients >= 2, "a foreign account needs another client");
constexpr int kAccountsPerClient = 2;
// Opening balances in minor units, small against the amounts: a few transfers drain an account, so some
// 402s depend on the order in which concurrent requests land (the model follows the answers, not an order).
constexpr std::int64_t kMinOpening = 1'000, kMaxOpening = 20'000;
constexpr int kAmountDivisor = 3;  // an ordinary amount is at most a third of the source's opening balance
constexpr int kMinRequestsPerClient = 2, kMaxRequestsPerClient = 5;
// How often each variation is drawn: one request (or round) in N.
constexpr int kOneInPayout = 4;
constexpr int kOneInOverdraft = 8;  // more than the round's whole money: 402 whatever the order
constexpr int kOneInForeign = 10;   // from another client's account: 404
constexpr int kOneInCrashBefore = 8;
constexpr int kOneInCrashAfter = 8;
constexpr int kOneInBusy = 12;      // Lab-Fail: busy: 503, and the key is free again
constexpr int kOneInDelay = 3;      // Lab-Delay-Ms: the request is surely in flight when a SIGKILL lands
constexpr int kOneInDuplicate = 5;  // a second copy of the first attempt at the same time: a double click
constexpr int kOneInSigkillRound = 3;
// Moments, in milliseconds after the round's clients start.
constexpr int kMaxStartOffsetMs = 30;
constexpr int kMinDelayMs = 10, kMaxDelayMs = 80;
constexpr int kMinKillAfterMs = 5, kMaxKillAfterMs = 90;
// A client's patience in the chaos: after it, what is still unknown waits for the settle phase.
constexpr std::chrono::milliseconds kChaosPatience{3'000};
// Short: once the server is dead, a client notices at once instead of waiting the usual connect patience.
constexpr std::chrono::milliseconds kClientConnectPatience{200};
constexpr std::chrono::milliseconds kFirstBackoff{5}, kMaxBackoff{50};
constexpr std::chrono::milliseconds kSupervisorPoll{2};  // how often the supervisor asks whether the server lives
// 409s in a row before a client lets the lease run out on the lab clock: the holder may have died.
constexpr int kInProgressBeforeTakeover = 2;
// R7: the lab clock goes this far past the lease before the key table is read (milliseconds).
constexpr std::int64_t kLeaseMarginMs = 1'000;

const DocRef kTeaches{"docs/reference/plumbing.md", "Reliability"};

// One intent of the round, how its first attempt goes out, and every final answer it got.
struct Request {
  Intent* intent = nullptr;
  Attempt first;                      // the intent's request with its lab headers
  std::string crash;                  // the Lab-Crash point of the first attempt, or ""
  std::optional<int> refused_with;    // R6: 402 for an overdraft, 404 for a foreign account
  std::vector<Exchange> answers;      // final answers (not 409 in progress, not 503), in the order they came
  std::optional<Exchange> unsettled;  // the last unknown outcome, when no final answer came
};

// One client thread: a request's first attempt (or its double click), then its retries.
struct Sender {
  std::size_t request = 0;
  bool double_click = false;
  int start_ms = 0;
  std::optional<Exchange> answer = {};  // its final answer, if one came in the chaos
  bool first_unanswered = false;        // the first attempt got no response (a Lab-Crash does that)
};

struct Plan {
  std::vector<Request> requests;
  std::vector<Sender> senders;
  std::int64_t kill_after_ms = 0;  // when the SIGKILL lands; 0: no SIGKILL this round
  std::string summary;
};

bool one_in(Rng& rng, int n) { return rng.between(1, n) == 1; }

bool is_final(const Exchange& x) { return x.response && x.response->status != 503 && !is_in_progress(x); }

bool same_answer(const HttpResponse& a, const HttpResponse& b) {
  return a.status == b.status && a.header("Content-Type") == b.header("Content-Type") && a.body == b.body;
}

// Every random draw happens here, in one order on one thread, so --seed and --round repeat the round.
Plan plan_round(CheckRun& run) {
  World& world = run.world();
  Rng& rng = run.rng();
  Plan plan;
  std::vector<ClientInfo*> clients;
  std::vector<Account*> all_accounts;  // client c's accounts at c * kAccountsPerClient onwards
  std::int64_t all_money = 0;
  const int client_count = static_cast<int>(rng.between(kMinClients, kMaxClients));
  for (int c = 0; c < client_count; ++c) {
    clients.push_back(&world.client("soak" + std::to_string(c + 1)));
    for (int a = 0; a < kAccountsPerClient; ++a) {
      Account& account = world.account(*clients.back(), rng.between(kMinOpening, kMaxOpening));
      all_accounts.push_back(&account);
      all_money += account.opening;
    }
  }
  for (int c = 0; c < client_count; ++c) {
    const int count = static_cast<int>(rng.between(kMinRequestsPerClient, kMaxRequestsPerClient));
    for (int n = 0; n < count; ++n) {
      Request r;
      const bool foreign = one_in(rng, kOneInForeign);
      const int owner = foreign ? static_cast<int>((c + rng.between(1, client_count - 1)) % client_count) : c;
      const auto from_index =
          static_cast<std::size_t>(owner * kAccountsPerClient + rng.between(0, kAccountsPerClient - 1));
      Account& from = *all_accounts[from_index];
      const bool overdraft = !foreign && one_in(rng, kOneInOverdraft);
      const std::int64_t amount =
          overdraft ? all_money + rng.between(1, kMaxOpening) : rng.between(1, from.opening / kAmountDivisor);
      auto to_index = static_cast<std::size_t>(rng.between(0, all_accounts.size() - 2));  // any account but `from`
      if (to_index >= from_index) ++to_index;
      r.intent = one_in(rng, kOneInPayout) ? &world.payout(*clients[c], from, amount)
                                           : &world.transfer(*clients[c], from, *all_accounts[to_index], amount);
      if (foreign) r.refused_with = 404;
      if (overdraft) r.refused_with = 402;
      r.first = r.intent->attempt();
      if (one_in(rng, kOneInCrashBefore))
        r.crash = "before-money";
      else if (one_in(rng, kOneInCrashAfter))
        r.crash = "after-money";
      else if (one_in(rng, kOneInBusy))
        r.first = r.first.with_header(kLabFail, "busy");
      if (!r.crash.empty()) r.first = r.first.with_header(kLabCrash, r.crash);
      if (one_in(rng, kOneInDelay))
        r.first = r.first.with_header(kLabDelay, std::to_string(rng.between(kMinDelayMs, kMaxDelayMs)));
      plan.senders.push_back(
          {.request = plan.requests.size(), .start_ms = static_cast<int>(rng.between(0, kMaxStartOffsetMs))});
      if (one_in(rng, kOneInDuplicate))
        plan.senders.push_back({.request = plan.requests.size(),
                                .double_click = true,
                                .start_ms = static_cast<int>(rng.between(0, kMaxStartOffsetMs))});
      plan.requests.push_back(std::move(r));
    }
  }
  if (one_in(rng, kOneInSigkillRound)) plan.kill_after_ms = rng.between(kMinKillAfterMs, kMaxKillAfterMs);

  int crashes = 0, double_clicks = static_cast<int>(plan.senders.size() - plan.requests.size());
  for (const auto& r : plan.requests) crashes += !r.crash.empty();
  plan.summary = std::to_string(client_count) + " clients, " + std::to_string(plan.requests.size()) + " keys, " +
                 std::to_string(double_clicks) + " double clicks, " + std::to_string(crashes) + " Lab-Crash" +
                 (plan.kill_after_ms ? ", SIGKILL " + std::to_string(plan.kill_after_ms) + " ms in" : "");
  return plan;
}

// One client: the first attempt, then the same key and body again after every unknown outcome, until a
// final answer or its patience ends. Runs on its own thread; writes only its own Sender.
void send_until_answered(CheckRun& run, const Request& request, Sender& sender) {
  std::this_thread::sleep_for(std::chrono::milliseconds(sender.start_ms));
  const Attempt retry = request.intent->attempt();
  const auto deadline = std::chrono::steady_clock::now() + kChaosPatience;
  auto backoff = kFirstBackoff;
  int in_progress = 0;
  for (bool first = true;; first = false) {
    Exchange x = run.send(first && !sender.double_click ? request.first : retry, kClientConnectPatience);
    if (first) sender.first_unanswered = !x.response;
    if (is_final(x)) {
      sender.answer = std::move(x);
      return;
    }
    if (is_in_progress(x) && ++in_progress >= kInProgressBeforeTakeover) {
      in_progress = 0;
      try {
        run.advance_past_lease();
      } catch (const ApiError&) {
        // The server went down meanwhile: the next retry finds it restarted.
      }
    }
    if (std::chrono::steady_clock::now() + backoff > deadline) return;
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

// The server's life while the clients send: the planned SIGKILL, and a restart on the same database file
// whenever the process has ended (a Lab-Crash or the SIGKILL). Only this thread starts and reaps it.
void supervise(CheckRun& run, std::int64_t kill_after_ms, const std::atomic<int>& running) {
  const auto started = std::chrono::steady_clock::now();
  while (running > 0) {
    if (kill_after_ms && std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(kill_after_ms)) {
      run.sigkill("SIGKILL " + std::to_string(kill_after_ms) + " ms into the round");
      kill_after_ms = 0;
    }
    if (!run.target().alive()) run.restart();
    std::this_thread::sleep_for(kSupervisorPoll);
  }
  if (!run.target().alive()) run.restart();
}

void run_chaos(CheckRun& run, Plan& plan) {
  std::atomic<int> running{static_cast<int>(plan.senders.size())};
  std::vector<std::jthread> clients;  // joined before plan's senders go (declared after them)
  for (auto& sender : plan.senders)
    clients.emplace_back([&run, &plan, &sender, &running] {
      send_until_answered(run, plan.requests[sender.request], sender);
      --running;
    });
  supervise(run, plan.kill_after_ms, running);
}

// The clients' answers per key, in the order they came; then, one key at a time, what is still unknown is
// retried until it has a final answer (the lease runs out on the lab clock where a dead holder keeps it).
void settle_the_rest(CheckRun& run, Plan& plan) {
  std::vector<const Sender*> answered;
  for (const auto& s : plan.senders)
    if (s.answer) answered.push_back(&s);
  std::sort(answered.begin(), answered.end(),
            [](const Sender* a, const Sender* b) { return a->answer->done_ns < b->answer->done_ns; });
  for (const Sender* s : answered) plan.requests[s->request].answers.push_back(*s->answer);
  for (auto& r : plan.requests) {
    if (!r.answers.empty()) continue;
    Exchange x = run.settle(r.intent->attempt(), Settle{.lease_takeover = true});
    if (is_final(x))
      r.answers.push_back(std::move(x));
    else
      r.unsettled = std::move(x);
  }
}

std::string key_of(const Request& r) { return "key " + r.intent->key + " (intent " + r.intent->id + ")"; }

// R1: each key's answers, and its answer now, are its first answer byte for byte.
void check_answers(CheckRun& run, Request& r) {
  const Attempt again = r.intent->attempt();
  if (r.answers.empty()) {
    const Exchange& x = *r.unsettled;
    run.fail(is_in_progress(x) ? Anomaly::StuckKey : Anomaly::NoResponse,
             key_of(r) + " got no final answer: the last retry, after the lease had run out, got " +
                 (x.response ? std::to_string(x.response->status) : "no response"),
             &again, &x, "a final answer once the first request has ended or its lease has run out");
    return;
  }
  Exchange now = run.settle(again, Settle{.nothing_running = true});
  if (!now.response) {
    run.fail(Anomaly::NoResponse, key_of(r) + " got no answer when it was sent again after the round", &again, &now,
             "the first answer, replayed");
    return;
  }
  if (is_in_progress(now)) {
    run.fail(Anomaly::StuckKey,
             key_of(r) + " still answers 409 in progress though every request of the round has ended", &again, &now,
             "the first answer, replayed");
    return;
  }
  r.answers.push_back(std::move(now));
  const HttpResponse& first = *r.answers.front().response;
  for (std::size_t n = 1; n < r.answers.size(); ++n) {
    const Exchange& x = r.answers[n];
    if (x.response && same_answer(*x.response, first)) continue;
    run.fail(Anomaly::ReplayMismatch,
             key_of(r) + ": answer " + std::to_string(n + 1) +
                 (n + 1 == r.answers.size() ? " (sent after the round)" : "") + " is not the first answer (" +
                 std::to_string(first.status) + ") byte for byte",
             &again, &x, "the first answer, byte for byte:\n" + show_exchange(r.answers.front()));
    return;
  }
}

// R3-R5: the balances against a model that knows only the requests and their answers.
void check_model(CheckRun& run, const Plan& plan) {
  Balances model = run.balances_before();
  std::int64_t opening = 0, paid_out = 0, now = 0;
  for (const auto& [id, balance] : model) opening += balance;
  for (const auto& r : plan.requests) {
    if (r.answers.empty() || !is_success(r.answers.front())) continue;
    model[r.intent->from] -= r.intent->amount;
    if (r.intent->path == "/transfers")
      model[r.intent->to] += r.intent->amount;
    else
      paid_out += r.intent->amount;
  }
  for (const auto& [id, balance] : run.balances_after()) {
    now += balance;
    if (balance != model[id])
      run.fail(Anomaly::BalanceDrift,
               "R3: account " + std::to_string(id) + " holds " + std::to_string(balance) +
                   ", but its opening balance and the requests answered 2xx give " + std::to_string(model[id]),
               nullptr, nullptr, "opening + transfers in - transfers and payouts out, of the requests answered 2xx");
    if (balance < 0)
      run.fail(Anomaly::BalanceDrift, "R5: account " + std::to_string(id) + " holds " + std::to_string(balance),
               nullptr, nullptr, "no balance below 0");
  }
  if (now != opening - paid_out)
    run.fail(Anomaly::BalanceDrift,
             "R4: the accounts hold " + std::to_string(now) + ", but they opened with " + std::to_string(opening) +
                 " and the payouts answered 2xx sent " + std::to_string(paid_out) + " out of the bank",
             nullptr, nullptr, "money is conserved: only payouts leave the bank");
}

// R7: the file itself, read-only while the server runs. Returns a caveat when it could not be read.
std::string check_database_file(CheckRun& run) {
  const std::string path = run.target().database_path();
  if (path.empty()) return "there is no database file the grader knows ({db_name} without {db}): R7 was not checked";
  const std::int64_t now_ms = run.api().advance_clock_ms(run.target().facts().lease_seconds * 1000 + kLeaseMarginMs);
  DatabaseFileReading file = read_database_file(path, now_ms);
  if (!file.unavailable.empty()) return "R7 was not checked: " + file.unavailable;
  if (file.integrity != "ok")
    run.add_finding({.anomaly = Anomaly::CorruptDatabase,
                     .what = "R7: PRAGMA integrity_check on " + path + " says: " + file.integrity,
                     .expected = "ok",
                     .hint = "a crash must never corrupt the file: keep SQLite's journal on (the lab uses WAL with "
                             "synchronous=NORMAL, docs/reference/plumbing.md \"SQLite\") and let nothing else write it"});
  if (!file.stuck_keys) return "";
  for (const auto& key : *file.stuck_keys)
    run.add_finding({.anomaly = Anomaly::StuckKey,
                     .what = "R7: the key table holds " + key + " in_progress at " + std::to_string(now_ms) +
                             " ms on the lab clock, though every request has ended",
                     .expected = "every key completed, or released, once its requests have ended"});
  return "";
}

// R6 and the judgement of the whole round. Returns why R7 was not checked, or "".
std::string judge_round(CheckRun& run, Plan& plan) {
  for (auto& r : plan.requests) check_answers(run, r);
  for (auto& r : plan.requests) {
    if (r.answers.empty()) continue;
    const Exchange& first = r.answers.front();
    // R2 through the auditor: a key answered 2xx moved money exactly once, a refused one never.
    if (is_success(first))
      r.intent->expect_moves = 1;
    else
      r.intent->max_moves = 0;
    if (r.refused_with && status_of(first) != *r.refused_with)
      run.fail(Anomaly::WrongStatus,
               "R6: " + key_of(r) + " was answered " + std::to_string(status_of(first)) + ", expected " +
                   std::to_string(*r.refused_with) +
                   (*r.refused_with == 402 ? " (more than the bank holds)" : " (another client's account)"),
               &r.first, &first, std::to_string(*r.refused_with));
  }
  run.finish();
  check_model(run, plan);
  return check_database_file(run);
}

// The requests the findings name ("intent i3" or its key), each with its answers and its ledger entries.
std::string keys_named(const Plan& plan, const std::vector<Finding>& findings, CheckRun& run) {
  std::string out;
  for (const auto& r : plan.requests) {
    const std::string id = "intent " + r.intent->id;
    bool named = false;
    for (const auto& f : findings) {
      auto at = f.what.find(id);
      bool whole = at != std::string::npos && (at + id.size() == f.what.size() ||
                                               !std::isdigit(static_cast<unsigned char>(f.what[at + id.size()])));
      named = named || whole || f.what.find(r.intent->key) != std::string::npos;
    }
    if (!named) continue;
    out += "  " + r.intent->id + "  key " + r.intent->key + "  POST " + r.intent->path + " " + r.intent->body + "\n";
    out += "      first attempt: " + std::string(r.crash.empty() ? "no Lab-Crash" : "Lab-Crash: " + r.crash) +
           "; answers:";
    for (const auto& x : r.answers) out += " " + std::to_string(status_of(x));
    out += "; ledger entries: " + std::to_string(run.moves(*r.intent)) + "\n";
  }
  return out;
}

SoakFigures figures_of(const Plan& plan, const History& history, const std::string& round_name, std::size_t findings) {
  SoakFigures f;
  f.rounds = 1;
  std::int64_t final_sends = 0;
  for (const auto& r : plan.requests) final_sends += !r.answers.empty();
  for (const auto& e : history.of_check(round_name)) {
    f.requests += e.type == EventType::Invoke;
    f.sigkills += e.type == EventType::Fault && e.fault == "sigkill";
    f.restarts += e.type == EventType::Fault && e.fault == "restart";
  }
  f.retries = std::max<std::int64_t>(0, f.requests - static_cast<std::int64_t>(plan.senders.size()) - final_sends);
  for (const auto& s : plan.senders) {
    const std::string& crash = plan.requests[s.request].crash;
    if (s.double_click || !s.first_unanswered) continue;
    f.crashes_before_money += crash == "before-money";
    f.crashes_after_money += crash == "after-money";
  }
  f.anomalies = static_cast<std::int64_t>(findings);
  return f;
}

}  // namespace

SoakFigures& SoakFigures::operator+=(const SoakFigures& o) {
  rounds += o.rounds, requests += o.requests, retries += o.retries;
  crashes_before_money += o.crashes_before_money, crashes_after_money += o.crashes_after_money;
  sigkills += o.sigkills, restarts += o.restarts, anomalies += o.anomalies, database_checks += o.database_checks;
  return *this;
}

RoundResult run_soak_round(Target& target, History& history, std::uint64_t seed, int round,
                           std::int64_t ledger_known_end) {
  RoundResult result;
  result.check = Check{.name = "soak.round-" + std::to_string(round),
                       // Stage 4: a crash between the claim and the money is that stage's lesson, so a finding
                       // names stage 4 or the later stage whose lesson fixes its anomaly.
                       .stage = 4,
                       .title = "crashes, SIGKILLs and retries leave one ledger entry per successful key",
                       .teaches = kTeaches,
                       .hint =
                           "the money and the key's completion commit together, every repeat gets the stored "
                           "response, and a restart loses nothing that was committed",
                       .needs = Needs::Restart,
                       .run = {}};  // run_soak_round is its body
  CheckRun run(result.check, target, history, seed, "", ledger_known_end);
  result.ledger_start = run.ledger_start();
  Plan plan = plan_round(run);
  result.plan = plan.summary;
  run_chaos(run, plan);
  settle_the_rest(run, plan);
  result.database_caveat = judge_round(run, plan);
  result.note = run.caveat();
  result.findings = run.findings();
  // The money first: a key that moved money twice also answers differently, and the double apply is the cause.
  std::stable_partition(result.findings.begin(), result.findings.end(), [](const Finding& f) {
    return f.anomaly == Anomaly::DoubleApply || f.anomaly == Anomaly::LostWrite || f.anomaly == Anomaly::NotExecuted ||
           f.anomaly == Anomaly::UnexplainedEntry || f.anomaly == Anomaly::BalanceDrift;
  });
  result.before = run.balances_before();
  result.after = run.balances_after();
  if (!result.findings.empty()) result.keys_named = keys_named(plan, result.findings, run);
  result.figures = figures_of(plan, history, result.check.name, result.findings.size());
  result.figures.database_checks = result.database_caveat.empty();
  return result;
}

}  // namespace grader
