// check_run.cc: see check_run.h.
#include "grader/checks/check_run.h"

#include <algorithm>
#include <cctype>
#include <latch>
#include <set>
#include <thread>

#include "grader/checks/check_helpers.h"
#include "grader/record/audit.h"
#include "grader/record/overlap.h"
#include "grader/record/truth.h"

namespace grader {
namespace {

// The attempt asks the server to fail it (Lab-Fail: busy): its 503 is the one the check wanted.
bool asks_for_failure(const Attempt& attempt) {
  return std::any_of(attempt.extra.begin(), attempt.extra.end(), [](const auto& header) {
    return std::equal(header.first.begin(), header.first.end(), std::string_view(kLabFail).begin(),
                      std::string_view(kLabFail).end(), [](char a, char b) { return std::tolower(a) == std::tolower(b); });
  });
}

// A client's patience in settle(): how long it keeps retrying, and how fast. The grader retries sooner
// than a Retry-After of seconds would ask: the lab's delays are a few hundred milliseconds.
constexpr std::chrono::milliseconds kSettlePatience{12'000};
constexpr std::chrono::milliseconds kFirstBackoff{10};
constexpr std::chrono::milliseconds kMaxBackoff{100};
// A settle()'s patience once a key of the same check was found stuck (see settle).
constexpr std::chrono::milliseconds kPatienceOnceStuck{1'000};
// How often a settle() that keeps waiting says so (CheckRun::on_waiting).
constexpr std::chrono::seconds kTellWaitingEvery{5};
// 409s in a row before settle(lease_takeover) lets the lease run out: enough to see the key is held.
constexpr int kInProgressBeforeTakeover = 2;
// Past the lease by this much, so "expired" is not decided by a rounding of the server's clock.
constexpr std::int64_t kLeaseMarginMs = 1'000;
constexpr std::int64_t kRealLeaseMarginMs = 200;
// The audit's quiet moment: readings of the ledger and the balances until two in a row agree. Once every
// request has ended nothing should write, so two readings normally suffice; the bound only stops a server
// that keeps writing on its own (or another client of a --url server) from holding the grader forever.
constexpr int kMaxQuietReadings = 10;
constexpr std::chrono::milliseconds kQuietPause{50};

// Where to look when a connection was turned away before any answer: the server's plumbing, not its lesson.
constexpr const char* kTransportHint =
    "accept connections promptly and serve requests on more than one thread, with a listen backlog of at least "
    "the burst (the lab's servers listen with 1024): the grader sends up to 32 requests at once";

// How the connection failed before any answer came, or "" if it did not: refused or never accepted (the
// connect failed; nothing was sent), or reset (wire.cc's errors carry the system's words for each).
std::string connection_turned_away(const Exchange& x) {
  if (x.response) return "";
  const bool connecting = x.error.rfind("cannot connect", 0) == 0;
  if (connecting && x.error.find("Connection refused") != std::string::npos) return "refused";
  if (connecting && x.error.find("timed out") != std::string::npos) return "never accepted (connect timed out)";
  if (x.error.find("Connection reset") != std::string::npos || x.error.find("Broken pipe") != std::string::npos)
    return "reset";
  return "";
}

// Where to look when a key answers "in progress" with nothing running, and when it does so past its lease.
constexpr const char* kStuckKeyHint =
    "complete the key in the transaction that moves the money (and release it when the request fails), and let "
    "the lookup after the failed INSERT return that row (is that lookup written at all?), so a repeat after the end is "
    "replayed; 409 only while the first request still runs";
constexpr const char* kNoExpiryHint =
    "an in_progress key needs a lease on the lab clock (POST /admin/clock moves it): once its locked_until has "
    "passed, a retry takes the key over (fenced) instead of hearing 409 forever";
constexpr const char* kIdenticalRefusedHint =
    "compute the fingerprint the same way where the key is stored and where a repeat is compared: of the "
    "canonical body alone (RFC 8785), never of the raw bytes on one side, a header, a time or a salt";
constexpr const char* kStillAnswersHint =
    "look for what the check left behind: a transaction or lock never released, a worker thread that never came "
    "back, a key table row that blocks every later request";

std::string shorten(std::string text, std::size_t max = 600) {
  if (text.size() > max) text = text.substr(0, max) + "... (" + std::to_string(text.size()) + " bytes)";
  return text;
}

// Stages 2 and 3 answer a repeat 200 {"status": "already processed"} (openapi.yaml, AlreadyProcessed).
bool is_already_processed(const HttpResponse& res) {
  try {
    auto j = nlohmann::json::parse(res.body);
    return j.is_object() && j.contains("status") && j["status"] == "already processed";
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

std::string problem_type_of(const HttpResponse& res) {
  try {
    auto j = nlohmann::json::parse(res.body);
    if (j.is_object() && j.contains("type") && j["type"].is_string()) {
      std::string type = j["type"];
      auto slash = type.rfind('/');
      return slash == std::string::npos ? type : type.substr(slash + 1);
    }
  } catch (const nlohmann::json::exception&) {
  }
  return "";
}

std::string show_request(const Attempt& a) {
  std::string out = "POST " + a.path + "\n";
  for (const auto& [name, value] : a.to_request().headers)
    out += "  " + name + ": " + redacted_header_value(name, value) + "\n";
  return out + "  " + shorten(a.body);
}

std::string show_exchange(const Exchange& x) {
  if (!x.response) return "no response (" + x.error + ")";
  std::string out = std::to_string(x.response->status);
  for (const char* name : {"Content-Type", "Idempotent-Replayed", "Retry-After"})
    if (auto v = x.response->header(name)) out += "\n  " + std::string(name) + ": " + *v;
  return out + "\n  " + shorten(x.response->body);
}

CheckRun::CheckRun(const Check& check, Target& target, History& history, std::uint64_t seed, const std::string& nonce,
                   std::int64_t ledger_known_end, int histories)
    : check_(check),
      target_(target),
      history_(history),
      seed_(seed),
      histories_(histories),
      api_(target),
      rng_(Rng::for_check(seed, check.name)),
      world_(api_, rng_, nonce),
      deadline_(std::chrono::steady_clock::now() + check.time_bound),
      in_flight_(history) {
  api_.set_being_served([this] { return being_served(history_.of_check(check_.name)); });
  ledger_start_ = api_.ledger_end(ledger_known_end);
}

Exchange CheckRun::send(const Attempt& a, std::chrono::milliseconds connect_patience) {
  HttpRequest req = a.to_request();
  auto op = history_.invoke(check_.name, a.intent ? a.intent->id : "-", a.key_header, req);
  std::optional<Connection> unfinished;  // lost or timed out: the client gives up, the observer does not
  Exchange x = a.lose_response
                   ? send_unread(target_.address(), req, &unfinished)
                   : exchange(target_.address(), req, kResponseTimeout, connect_patience, &unfinished);
  history_.complete(op, x);
  remember_op(x, op);
  remember_success(a, x);
  if (unfinished) in_flight_.watch(op, std::move(*unfinished));
  return x;
}

std::int64_t CheckRun::record_invoke(const std::string& intent, const HttpRequest& request) {
  std::optional<std::string> key;  // as sent, as send() records an attempt's
  for (const auto& [name, value] : request.headers)
    if (name == "Idempotency-Key") key = value;
  return history_.invoke(check_.name, intent, key, request);
}

void CheckRun::record_complete(std::int64_t op, const Exchange& x) { history_.complete(op, x); }

void CheckRun::record_fault(const std::string& what, const std::string& detail) {
  history_.fault(check_.name, what, detail);
}

void CheckRun::remember_op(const Exchange& x, std::int64_t op) {
  std::lock_guard lock(ops_mutex_);
  op_of_exchange_[x.done_ns] = op;
}

void CheckRun::remember_success(const Attempt& a, const Exchange& x) {
  if (!a.intent || !is_success(x)) return;
  std::lock_guard lock(ops_mutex_);
  const bool replayed_problem = says_replayed(x) && x.response->media_type() == "application/problem+json";
  (replayed_problem ? told_success_by_replayed_problem_ : told_success_otherwise_).insert(a.intent->id);
}

std::vector<Exchange> CheckRun::send_simultaneously(const std::vector<Attempt>& attempts) {
  largest_burst_ = std::max(largest_burst_, attempts.size());
  std::vector<Exchange> results(attempts.size());
  std::latch ready(static_cast<std::ptrdiff_t>(attempts.size()));
  std::latch go(1);
  std::vector<std::jthread> threads;
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    threads.emplace_back([&, i] {
      const Attempt& a = attempts[i];
      Exchange& x = results[i];
      const Address to = target_.address();  // several instances: the burst is spread over all of them
      std::string wire = a.to_request().to_wire(to);
      auto connection = Connection::open_patiently(to, kConnectPatience, &x.error);
      // Everything but the last byte now: the server has the request except its end, and waits.
      bool primed = connection && connection->send_all(std::string_view(wire).substr(0, wire.size() - 1), &x.error);
      ready.count_down();
      go.wait();
      auto op = history_.invoke(check_.name, a.intent ? a.intent->id : "-", a.key_header, a.to_request());
      bool timed_out = false;  // the client gave up waiting: the server may still run it
      if (primed) {
        x.maybe_reached = true;
        if (connection->send_all(std::string_view(wire).substr(wire.size() - 1), &x.error)) {
          x.sent_ns = monotonic_ns();
          x.response = connection->read_response(kResponseTimeout, &x.error, &timed_out);
        }
      }
      x.done_ns = monotonic_ns();
      history_.complete(op, x);
      remember_op(x, op);
      remember_success(a, x);
      if (timed_out) in_flight_.watch(op, std::move(*connection));
    });
  }
  ready.wait();
  go.count_down();  // the last bytes leave within microseconds of each other
  threads.clear();  // joins
  return results;
}

Exchange CheckRun::settle(const Attempt& a, Settle how) {
  const auto started = std::chrono::steady_clock::now();
  if (started >= deadline_)
    throw CheckOverTime("the check ran past its time bound of " + std::to_string(check_.time_bound.count()) + " s");
  const std::string key = a.path + " " + a.token + " " + a.key_header.value_or("(no key)");
  const bool known_stuck = stuck_keys_.count(key) > 0;
  // Once a key of this check was stuck, the verdict is certain: the check goes on for its other findings,
  // but no longer waits a whole patience on every 409.
  const auto patience = stuck_keys_.empty() ? kSettlePatience : kPatienceOnceStuck;
  auto deadline = known_stuck ? started : std::min(started + patience, deadline_);
  auto backoff = kFirstBackoff;
  auto next_word = started + kTellWaitingEvery;
  int in_progress = 0, lease_advances = 0;
  for (;;) {
    Exchange x = send(a);
    bool retry = false;
    if (x.response) {
      int s = x.response->status;
      if (s == 409 && problem_type_of(*x.response) == "request-in-progress") {
        if (how.nothing_running) return x;
        retry = true;
        if (how.lease_takeover && ++in_progress >= kInProgressBeforeTakeover) {
          // First the lab clock; if the key is still held after that, the server's leases may keep real
          // time: on a short lease, wait it out as well.
          if (++lease_advances > 1) wait_out_lease_in_real_time();
          advance_past_lease();
          in_progress = 0;
        }
      } else if (s == 409) {
        report_unretried_409(a, x);
      } else if (s == 503) {
        retry = true;
      }
    } else {
      retry = true;
      if (!target_.alive()) {
        if (!how.restart_if_down || !target_.can_restart()) return x;
        history_.fault(check_.name, "restart", "the server was down after " + x.error);
        restart();
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (!retry || now + backoff > deadline) {
      if (retry && is_in_progress(x)) {  // still in progress after all that patience: a stuck key
        stuck_keys_.insert(key);
        gave_up_on_[x.done_ns] = std::chrono::duration<double>(now - started).count();
      }
      return x;
    }
    if (now >= next_word && tell_waiting_) {
      next_word = now + kTellWaitingEvery;
      tell_waiting_("waiting " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - started).count()) +
                    " s for an answer to " + a.path + " with key " + shorten(a.key_header.value_or("(none)"), 40) +
                    " (last: " +
                    (x.response ? std::to_string(x.response->status) : "no response") + "; gives up after " +
                    std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kSettlePatience).count()) + " s)");
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

void CheckRun::confirm_still_answers() {
  ClientInfo& probe = world_.client("liveness");
  Account& from = world_.account(probe, 10'000);
  Account& to = world_.account(probe, 0);
  Intent& pay = world_.transfer(probe, from, to, 1'000);
  pay.expect_moves = 1;
  const Attempt a = pay.attempt();
  Exchange x = settle(a);
  if (is_success(x)) return;
  Finding finding = finding_with_evidence(
      Anomaly::NoResponse,
      "after this check the server no longer answers a new transfer on fresh accounts (" +
          (x.response ? "answered " + std::to_string(x.response->status) : "no response: " + x.error) + " after " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kSettlePatience).count()) +
          " s of retries): something the check did left it stuck",
      &a, &x, "201: a new request on new accounts, whatever happened before");
  finding.hint = kStillAnswersHint;
  pay.audited = false;  // its money not moving is this finding, not a lost write as well
  add_finding(std::move(finding));
}

std::int64_t CheckRun::moves(const Intent& intent) {
  return static_cast<std::int64_t>(entries_of(intent, api_.ledger_after(ledger_start_)).size());
}

std::int64_t CheckRun::observe(const Intent& intent) {
  auto n = moves(intent);
  history_.observe(check_.name, intent.id, n);
  return n;
}

void CheckRun::advance_clock_ms(std::int64_t ms, const std::string& why) {
  history_.fault(check_.name, "clock", "advance " + std::to_string(ms) + " ms: " + why);
  api_.advance_clock_ms(ms);
}

void CheckRun::advance_past_lease() {
  lease_passed_ = true;
  advance_clock_ms(target_.facts().lease_seconds * 1000 + kLeaseMarginMs, "let the lease run out");
}

void CheckRun::advance_past_finished_leases() {
  advance_clock_ms(target_.facts().lease_seconds * 1000 + kLeaseMarginMs, "let the finished requests' leases pass");
}

void CheckRun::wait_out_lease_in_real_time() {
  const std::int64_t lease_seconds = target_.facts().lease_seconds;
  // A lease as short as the checks' own servers get (kShortLease, kCrashLease: check_helpers.h) is waited out
  // in real time too when the lab clock was not enough; a longer one would outlast the grader's patience.
  if (lease_seconds > kCrashLease.lease_seconds) return;
  history_.fault(check_.name, "wait", "let the lease run out in real time too");
  std::this_thread::sleep_for(std::chrono::milliseconds(lease_seconds * 1000 + kRealLeaseMarginMs));
}

void CheckRun::crashed_on_purpose(const std::string& how) {
  if (!target_.can_restart()) throw CheckAborted("this check crashes the server; it needs --server");
  refuse_restart_after_limit();
  history_.fault(check_.name, "lab-crash", how);
  target_.restart_after_crash();
  history_.fault(check_.name, "restart", "same database, " + target_.address().authority());
}

void CheckRun::sigkill(const std::string& why) {
  history_.fault(check_.name, "sigkill", why);
  target_.sigkill();
}

// A server the grader ended for going over a limit (server_process.h ServerLimits) did not crash: started
// again in the same check it would only go over it again, and what it left half done (a key in progress)
// would be judged as its fault. The check stops; the runner names the limit first, and the next check
// starts it again.
void CheckRun::refuse_restart_after_limit() const {
  if (!target_.limit_hit().empty())
    throw CheckAborted("the grader ended the server for going over a limit, so it is not started again in this check");
}

void CheckRun::restart() {
  refuse_restart_after_limit();
  target_.restart_after_crash();
  history_.fault(check_.name, "restart", "same database, " + target_.address().authority());
}

void CheckRun::add_finding(Finding finding) { findings_.push_back(std::move(finding)); }

void CheckRun::fail(Anomaly anomaly, std::string what, const Attempt* attempt, const Exchange* x,
                    std::string expected) {
  // Whatever the check asked (a replay, a policy, a retry after a crash), the very bytes of a key's first
  // send refused as another request is the fingerprint's fault: that is the finding, not the check's own.
  if (attempt && x && refused_as_another(*attempt, *x))
    return report_identical_refused(attempt->intent ? "intent " + attempt->intent->id + ": " : "", *attempt, *x,
                                    expected);
  add_finding(finding_with_evidence(anomaly, std::move(what), attempt, x, std::move(expected)));
}

void CheckRun::add_to_last_finding(const std::string& words) {
  if (!findings_.empty()) findings_.back().what += words;
}

void CheckRun::give_last_finding_lesson(int stage, const std::string& hint) {
  if (findings_.empty() || !findings_.back().hint.empty()) return;
  findings_.back().fixed_by = stage;
  findings_.back().hint = hint;
}

Finding CheckRun::finding_with_evidence(Anomaly anomaly, std::string what, const Attempt* attempt,
                                        const Exchange* x, std::string expected) {
  std::string hint;
  // A connection turned away while the server runs is a transport fault, not the lesson's: say so, and point
  // at the server's accept queue and threads. The check still fails: clients would see these errors too.
  if (std::string how = x ? connection_turned_away(*x) : ""; !how.empty() && target_.alive()) {
    // Linux drops a connection that finds the listen queue full (the connect times out) or, set to, resets
    // it; it refuses one only when nothing listens on the port.
    const std::string why =
        how == "refused" ? "nothing listened on the server's port, though its process runs"
        : largest_burst_ > 1
            ? "the server's listen backlog or thread pool is too small for a burst of " + std::to_string(largest_burst_)
            : "the server's listen backlog or thread pool is too small for the requests this check sends";
    anomaly = Anomaly::NoResponse;
    what += "; the connection was " + how + " before any answer: " + why + " (this is not an idempotency fault)";
    hint = kTransportHint;
  }
  // The attempt the finding shows, as the history recorded it: the report's timeline marks it.
  std::vector<std::int64_t> ops;
  if (x) {
    std::lock_guard lock(ops_mutex_);
    if (auto it = op_of_exchange_.find(x->done_ns); it != op_of_exchange_.end()) ops.push_back(it->second);
  }
  // A 503 nobody asked for (no Lab-Fail), answered while other requests of this check were being served: what
  // the check expected instead is beside the point, and so is its lesson (grader/record/overlap.h).
  if (x && x->response && x->response->status == 503 && !ops.empty() &&
      !(attempt && asks_for_failure(*attempt))) {
    if (const int beside = others_served_beside(history_.of_check(check_.name), ops.front()); beside > 0) {
      anomaly = Anomaly::WrongStatus;
      what += "; this 503 came while " + std::to_string(beside) + " other request" + (beside == 1 ? "" : "s") +
              " of this check " + (beside == 1 ? "was" : "were") +
              " being served, and no Lab-Fail asked for one: the server fails a request that overlaps another "
              "(do its threads share one database connection with no lock around it?), or its database stayed "
              "busy longer than it waits";
      hint = kOverlapped503Hint;
    }
  }
  return Finding{.anomaly = anomaly,
                 .what = std::move(what),
                 .sent = attempt ? show_request(*attempt) : "",
                 .received = x ? show_exchange(*x) : "",
                 .expected = std::move(expected),
                 .hint = std::move(hint),
                 .intent = attempt && attempt->intent ? attempt->intent->id : "",
                 .ops = std::move(ops)};
}

// The contract's only 409 is request-in-progress, which a client retries; any other 409 it takes as final.
// Said here, where the grader stops retrying: the check that reads the answer would only see a wrong status.
void CheckRun::report_unretried_409(const Attempt& a, const Exchange& x) {
  std::string type = problem_type_of(*x.response);
  if (type.empty()) type = "(not a problem document)";
  fail(Anomaly::WrongStatus,
       (a.intent ? "intent " + a.intent->id + ": " : "") + "409 " + type +
           " is not request-in-progress: a client does not retry it, and the contract has no other 409",
       &a, &x, "409 only as request-in-progress (retried until the first request ends); any other outcome has "
               "its own status");
  unretried_409s_.insert(x.done_ns);
}

void CheckRun::report_stuck_key(const std::string& who, const Attempt& a, const Exchange& x, const std::string& want) {
  // A changed body answered 409: the key may be stuck, or 409 may be how this server answers another body.
  // An identical retry tells them apart, tried once per check.
  if (a.intent && a.body != a.intent->body) {
    if (!changed_body_409_stuck_) {
      const Attempt same = a.intent->attempt();
      Exchange answered = send(same);
      changed_body_409_stuck_ = is_in_progress(answered);
      if (!*changed_body_409_stuck_)
        return add_finding(
            {.anomaly = Anomaly::WrongStatus,
             .what = who + "a changed body with this key was answered 409 request-in-progress, and an identical "
                           "retry right after was answered " + (answered.response ? std::to_string(answered.response->status)
                                                                                    : "nothing") +
                     ": the key is not stuck in progress; 409 is what the server answers to another body",
             .sent = show_request(a),
             .received = show_exchange(x),
             .expected = want,
             .hint = "a key reused with another body is refused 422 idempotency-key-reused; 409 request-in-progress "
                     "means only that the first request is still running",
             .intent = a.intent->id,
             .fixed_by = 3});  // telling another body from a repeat is the fingerprint's lesson
    }
    if (!*changed_body_409_stuck_) return;
  }
  ++stuck_count_;
  if (stuck_finding_) {  // the cause is said once; the count says how often it showed
    Finding& said = findings_[*stuck_finding_];
    const auto cut = said.what.find(" [");
    said.what = said.what.substr(0, cut) + " [" + std::to_string(stuck_count_) + " requests of this check]";
    return;
  }
  std::string what = who + "answered 409 request-in-progress";
  if (auto waited = gave_up_on_.find(x.done_ns); waited != gave_up_on_.end())
    what += " for " + std::to_string(static_cast<int>(waited->second + 0.5)) + " s of retries";
  // Which of two faults: the request finished (its money is in the ledger) and its key was never read as
  // finished; or nothing moved, the lease had passed, and the key was never let go.
  const bool finished = a.intent && moves(*a.intent) > 0;
  const bool no_expiry = lease_passed_ && !finished;
  what += finished     ? ", though its transfer is in the ledger: the request finished, and its key is still read "
                         "as in progress"
          : no_expiry  ? ", though the lab clock had passed the key's lease: the server's in-flight keys do not "
                         "expire on the lab clock (no lease at all, or a lease kept on a clock of its own, "
                         "longer than the grader waits)"
                       : ", though no request with that key was running any more: the key is stuck in progress";
  Finding finding = finding_with_evidence(Anomaly::StuckKey, std::move(what), &a, &x, want);
  if (finding.anomaly == Anomaly::StuckKey) finding.hint = no_expiry ? kNoExpiryHint : kStuckKeyHint;
  if (finding.anomaly == Anomaly::StuckKey && no_expiry) finding.cause = Cause::NoLeaseOnLabClock;
  stuck_finding_ = findings_.size();
  add_finding(std::move(finding));
}

// Another intent of this check was sent with the same key (bob with alice's key, a payout with a transfer's,
// a key's next life): then this body was not the key's first, and a 422 may be that first body speaking.
bool CheckRun::key_shared(const Intent& intent) const {
  for (const Intent& other : world_.intents())
    if (&other != &intent && other.key == intent.key) return true;
  return false;
}

// 422 idempotency-key-reused to the very bytes of the intent's first send, with no other intent of the check
// on its key, nor on a key that differs from it only in letter case or spaces (so that first body is the
// key's first: not bob's with alice's key, nor a key the server took for another, which is key-conflated).
bool CheckRun::refused_as_another(const Attempt& a, const Exchange& x) const {
  return x.response && x.response->status == 422 && a.intent && a.body == a.intent->body &&
         !key_shared(*a.intent) && !key_near_another(*a.intent) &&
         a.content_type == a.intent->attempt().content_type &&
         problem_type_of(*x.response) == "idempotency-key-reused";
}

bool CheckRun::replayed_own_request(const Attempt& a, const Exchange& x) {
  return x.response && says_replayed(x) && a.intent && a.body == a.intent->body && !key_shared(*a.intent) &&
         !first_send_of_its_key(x);
}

bool CheckRun::key_near_another(const Intent& intent) const {
  const auto folded = [](std::string key) {
    key.erase(0, std::min(key.find_first_not_of(' '), key.size()));
    key.erase(key.find_last_not_of(' ') + 1);
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return key;
  };
  for (const Intent& other : world_.intents())
    if (&other != &intent && other.key != intent.key && folded(other.key) == folded(intent.key)) return true;
  return false;
}

// The same bytes as the first send of the key refused as another request: whatever the check was about, the
// cause is the fingerprint, which is not a function of the body alone. Said once per check.
void CheckRun::report_identical_refused(const std::string& who, const Attempt& a, const Exchange& x,
                                        const std::string& want) {
  if (a.intent) refused_as_another_.insert(a.intent->id);
  if (identical_refused_said_) return;
  identical_refused_said_ = true;
  Finding finding = finding_with_evidence(
      Anomaly::FingerprintTooStrict,
      who + "an identical retry (the very bytes of the first send) was refused 422 idempotency-key-reused: the "
            "server's fingerprint of one body differs from one send to the next",
      &a, &x, want);
  finding.hint = kIdenticalRefusedHint;
  finding.cause = Cause::FingerprintUnstable;
  add_finding(std::move(finding));
}

bool CheckRun::first_send_of_its_key(const Exchange& x) {
  std::int64_t op = 0;
  {
    std::lock_guard lock(ops_mutex_);
    if (auto it = op_of_exchange_.find(x.done_ns); it != op_of_exchange_.end()) op = it->second;
  }
  if (op == 0) return false;
  const std::vector<Event> events = history_.of_check(check_.name);
  std::optional<std::string> key;
  for (const Event& e : events)
    if (e.type == EventType::Invoke && e.op == op) key = e.key;
  if (!key) return false;
  return std::none_of(events.begin(), events.end(), [&](const Event& e) {
    return e.type == EventType::Invoke && e.op < op && e.key == key;
  });
}

// Stage 2's answer to a repeat, given to a key never sent before: the server took another failure of its
// transaction (a CHECK on the balance, NOT NULL, a foreign key) for the key's UNIQUE violation. Said so, as
// stage 2's lesson (docs/learn/stage-2-unique-key.md, hints), whatever outcome the check expected.
void CheckRun::report_fresh_key_as_repeat(const std::string& who, const Attempt& a, const Exchange& x,
                                          const std::string& want) {
  Finding finding = finding_with_evidence(
      Anomaly::WrongStatus,
      who + "answered 200 {\"status\":\"already processed\"}, the answer to a repeat, but this was the first "
            "request ever sent with its key: the server took another failure of the request (an integrity error "
            "such as a CHECK on the balance, NOT NULL or a foreign key?) for the key's UNIQUE violation",
      &a, &x, want);
  if (!finding.hint.empty()) return add_finding(std::move(finding));
  finding.hint = "only the key table's UNIQUE violation means a repeat: tell it apart from every other integrity "
                 "error of the transaction by its code (SQLite: SQLITE_CONSTRAINT_UNIQUE), and answer the others "
                 "as what they are";
  finding.fixed_by = 2;
  if (a.intent) answered_as_repeat_.insert(a.intent->id);
  add_finding(std::move(finding));
}

bool CheckRun::expect_status(const Exchange& x, const Attempt& a, std::initializer_list<int> statuses,
                             const std::string& problem_type, Anomaly anomaly) {
  std::string want;
  for (int s : statuses) want += (want.empty() ? "" : " or ") + std::to_string(s);
  if (!problem_type.empty()) want += " application/problem+json type /problems/" + problem_type;
  std::string who = a.intent ? "intent " + a.intent->id + ": " : "";
  if (!x.response) {
    fail(Anomaly::NoResponse, who + "no response", &a, &x, want);
    return false;
  }
  bool status_ok = false;
  for (int s : statuses) status_ok = status_ok || x.response->status == s;
  if (!status_ok) {
    if (unretried_409s_.count(x.done_ns)) return false;  // settle() has said why this 409 is wrong
    if (is_in_progress(x) && (anomaly == Anomaly::StuckKey || gave_up_on_.count(x.done_ns))) {
      report_stuck_key(who, a, x, want);
      return false;
    }
    if (refused_as_another(a, x)) {
      report_identical_refused(who, a, x, want);
      return false;
    }
    if (x.response->status == 200 && is_already_processed(*x.response) && first_send_of_its_key(x)) {
      report_fresh_key_as_repeat(who, a, x, want);
      return false;
    }
    if (replayed_own_request(a, x)) {
      // The very bytes sent again, under a key no other request of the check has, answered as a replay: the
      // stored response came back, with a status the check did not expect (replay-status-200's mistake).
      fail(Anomaly::ReplayMismatch,
           who + "the repeat was answered as a replay (Idempotent-Replayed: true) with status " +
               std::to_string(x.response->status) + ", expected " + want,
           &a, &x, want);
      give_last_finding_lesson(lesson_teaching("stored-replay"),
                               "store the first response's status with its body, and replay both as they were");
      return false;
    }
    fail(anomaly, who + "answered " + std::to_string(x.response->status) + ", expected " + want, &a, &x, want);
    return false;
  }
  if (!problem_type.empty() && problem_type_of(*x.response) != problem_type) {
    fail(anomaly, who + "answered " + std::to_string(x.response->status) + " but not the problem type " + problem_type,
         &a, &x, want);
    return false;
  }
  const std::string media = x.response->media_type();
  if (!problem_type.empty() && media != "application/problem+json") {
    // The right problem in another envelope: not another outcome, but a client that tells a problem by its
    // media type will not see one. A replay (Idempotent-Replayed: true) did not replay its stored Content-Type.
    bool replayed = x.response->header("Idempotent-Replayed").value_or("") == "true";
    Finding finding = finding_with_evidence(
        replayed ? Anomaly::ReplayMismatch : Anomaly::ContractShape,
        who + "answered " + std::to_string(x.response->status) + " " + problem_type +
            ": the body is the right problem, but its Content-Type is " + (media.empty() ? "missing" : media) +
            ", not application/problem+json",
        &a, &x, want);
    finding.hint = replayed ? "store the response's Content-Type with its body, and replay both"
                            : "send every problem with Content-Type: application/problem+json";
    add_finding(std::move(finding));
    return false;
  }
  return true;
}

// The audit reads the ledger and then each balance: separate requests, so a write committing between
// them would show money the ledger does not explain (or the reverse). A reading counts only when the
// next one finds the same entries and the same balances: nothing moved in between.
CheckRun::Reading CheckRun::read_quietly() {
  std::set<std::int64_t> ours;
  for (const auto& account : world_.accounts()) ours.insert(account.id);
  auto read = [&] {
    Reading r{api_.ledger_after(ledger_start_), {}};
    for (const auto& account : world_.accounts())
      r.balances[account.id] = api_.account(account.id, account.owner_token).balance;
    return r;
  };
  // The entries that concern this check: a --url server may be shared, and other clients' writes there
  // do not make this check's moment less quiet.
  auto ids = [&](const Reading& r) {
    std::vector<std::int64_t> out;
    for (const auto& e : r.ledger) {
      bool mine = ours.count(e.from_account) || (e.to_account && ours.count(*e.to_account));
      for (const auto& intent : world_.intents()) mine = mine || !entries_of(intent, {e}).empty();
      if (mine) out.push_back(e.id);
    }
    return out;
  };
  Reading last = read();
  for (int n = 2; n <= kMaxQuietReadings; ++n) {
    Reading next = read();
    if (ids(next) == ids(last) && next.balances == last.balances) return next;
    last = std::move(next);
    std::this_thread::sleep_for(kQuietPause);
  }
  add_caveat("after every request had ended, the ledger or the balances still changed between each two of " +
             std::to_string(kMaxQuietReadings) + " readings " + std::to_string(kQuietPause.count()) +
             " ms apart; judged on the last reading");
  return last;
}

void CheckRun::add_caveat(const std::string& text) { caveat_ += (caveat_.empty() ? "" : "\n") + ("note:   " + text); }

int CheckRun::lesson_found_for(const std::string& intent, const std::vector<Event>& events) const {
  if (intent.empty()) return -1;
  for (const Finding& f : findings_) {
    if (f.fixed_by <= 0) continue;
    if (f.intent == intent) return f.fixed_by;
    for (std::int64_t op : f.ops)  // a finding with a request as evidence: the intent it was sent for
      for (const Event& e : events)
        if (e.type == EventType::Invoke && e.op == op && e.intent == intent) return f.fixed_by;
  }
  return -1;
}

void CheckRun::finish() {
  // Has every request the check sent ended? A lost or timed-out one may still run on a slow server; the
  // audit waits for it (bounded by kWatchPatience), so its money is in the ledger or never will be.
  for (const auto& late : in_flight_.wait_all()) add_caveat(late);
  if (!target_.alive() && target_.can_restart()) restart();  // a crash nobody asked for: judge what is left
  Reading now = read_quietly();
  for (const auto& account : world_.accounts()) before_[account.id] = account.opening;
  after_ = now.balances;
  const std::vector<Event> events = history_.of_check(check_.name);
  auto found = audit(world_.intents(), world_.accounts(), events, now.ledger, after_);
  // The auditor's finding about an intent that a finding of the check already explained with a lesson of its
  // own (a control tried its cause) is the same fact told in money: it takes that lesson.
  for (Finding& f : found)
    if (f.fixed_by < 0)
      if (const int lesson = lesson_found_for(f.intent, events); lesson > 0) f.fixed_by = lesson;
  findings_.insert(findings_.end(), found.begin(), found.end());
  // A success without money for an intent whose first request was answered as a repeat has that one cause,
  // stage 2's lesson (report_fresh_key_as_repeat), not the check's.
  // Likewise money that never moved for an intent whose retry was refused as another request: the retry
  // could not run because of the fingerprint (report_identical_refused), stage 3's lesson. And money moved
  // twice in a check whose control showed the keys forgotten (credit_double_applies). And a success without
  // money that only replays ever told, each a stored problem sent back as a 2xx: the replay's lesson.
  for (Finding& f : findings_) {
    if (f.fixed_by >= 0) continue;
    if (f.anomaly == Anomaly::LostWrite && answered_as_repeat_.count(f.intent)) f.fixed_by = 2;
    if (f.anomaly == Anomaly::NotExecuted && refused_as_another_.count(f.intent)) f.fixed_by = 3;
    if (f.anomaly == Anomaly::DoubleApply && double_apply_lesson_) f.fixed_by = *double_apply_lesson_;
    if (f.anomaly == Anomaly::LostWrite && told_success_by_replayed_problem_.count(f.intent) &&
        !told_success_otherwise_.count(f.intent))
      f.fixed_by = lesson_teaching("stored-replay");
    // A success told while the first request still ran is the in-progress state's lesson (stage 4), also when
    // a later stage's check saw it.
    if (const int own = info(Anomaly::InFlightLie).fixed_by; f.anomaly == Anomaly::InFlightLie && check_.stage > own)
      f.fixed_by = own;
  }
}

}  // namespace grader
