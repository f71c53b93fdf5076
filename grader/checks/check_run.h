// check_run.h: what a check body uses to talk to the server, record the history and report findings.
// docs/teach/grader.md "The grader".
//
//   void lost_response_retry(CheckRun& run) {
//     World& w = run.world();
//     ClientInfo& alice = w.client("alice");
//     Account& from = w.account(alice, 50'000);
//     Intent& pay = w.transfer(alice, from, w.account(alice, 0), 700);
//     pay.expect_moves = 1;                            // the auditor checks the money in finish()
//     run.send(pay.attempt().lost());                  // the response is lost on the client side
//     const Attempt retry = pay.attempt();
//     Exchange x = run.settle(retry);                  // retry until a definite answer
//     run.expect_status(x, retry, {200, 201});         // else a finding, the exchange as its evidence
//   }
//
// Sending never re-sends on its own: settle() is the only place that retries, and only what a client
// would retry (409 in progress, 503, no response). A request whose answer the client gives up on (lost on
// purpose, or timed out) is still watched until the server ends it (grader/record/in_flight.h), and finish()
// audits only once every request has ended. Thread safety: one thread, except inside send_simultaneously,
// which records from one thread per request, and checks that send from threads of their own (send, the
// history and advance_past_lease are safe for that: `grader soak`'s clients call it from their threads).
#pragma once

#include <atomic>
#include <functional>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "grader/checks/check.h"
#include "grader/record/anomaly.h"
#include "grader/record/audit.h"
#include "grader/record/history.h"
#include "grader/record/in_flight.h"
#include "grader/record/world.h"
#include "grader/wire/lab_api.h"
#include "grader/wire/target.h"

namespace grader {

struct Settle {
  bool lease_takeover = false;  // after a few 409s, advance the lab clock past the lease and go on
  bool restart_if_down = true;  // a dead server (a crash the check caused) is restarted
  bool nothing_running = false;  // no request with this key is running: a 409 in progress is a stuck key,
                                 // returned at once instead of waited out
};

// Thrown by a check that cannot go on (setup failed, the server is gone); the check fails with it.
struct CheckAborted : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Thrown by settle() once the check has run past its time bound (Check::time_bound): the check ends there,
// with the findings it has.
struct CheckOverTime : CheckAborted {
  using CheckAborted::CheckAborted;
};

class CheckRun {
 public:
  // ledger_known_end: an entry id known to be in the ledger already, so the start of this check is found by
  // paging from there rather than from the first entry (`grader soak` runs a thousand rounds on one server).
  CheckRun(const Check& check, Target& target, History& history, std::uint64_t seed, const std::string& nonce,
           std::int64_t ledger_known_end = 0, int histories = kConformanceHistories);

  World& world() { return world_; }
  LabApi& api() { return api_; }
  Rng& rng() { return rng_; }
  Target& target() { return target_; }
  const Check& check() const { return check_; }
  std::uint64_t seed() const { return seed_; }  // the grader's --seed (rng() is this check's stream of it)
  int histories() const { return histories_; }  // random histories a sampling check runs (RunConfig::histories)
  // Past it the check stops (Check::time_bound from its start): settle() throws CheckOverTime.
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

  // One attempt, recorded: invoke, then ok / fail / unknown.
  Exchange send(const Attempt& attempt, std::chrono::milliseconds connect_patience = kConnectPatience);
  // All at once: each connection gets all but its last byte, then the last bytes go out together.
  std::vector<Exchange> send_simultaneously(const std::vector<Attempt>& attempts);
  // A client's patience: retry on 409 request-in-progress, 503 and no response until a definite answer. A 409
  // of another problem type is not retried: it is given back, and reported as a finding here (the contract
  // has no other 409), so expect_status does not report it again. A key still in progress when the patience
  // runs out is remembered as stuck: the next settle() of it sends once (a key held forever must not cost the
  // patience again and again), and expect_status names it stuck-key. Throws CheckOverTime past the check's
  // time bound.
  Exchange settle(const Attempt& attempt, Settle how = {});
  // Told, every few seconds of a settle() that keeps waiting, what it waits for: a run that waits shows it.
  void on_waiting(std::function<void(const std::string&)> tell) { tell_waiting_ = std::move(tell); }
  // After the check's body: a new transfer on fresh accounts must still be answered 201. A server that
  // stopped answering (deadlocked, a lock never released) fails the check that left it so: no answer is
  // never a pass.
  void confirm_still_answers();
  // Records what the ledger holds for the intent now (the auditor's rule A3 reads it).
  std::int64_t observe(const Intent& intent);
  std::int64_t moves(const Intent& intent);  // ledger entries for the intent now, not recorded

  void advance_clock_ms(std::int64_t ms, const std::string& why);
  void advance_past_lease();
  // The same step while no request of the check is in progress: no claim waits on it, so a 409 seen later is
  // not blamed on leases that never expire (what advance_past_lease lets report_stuck_key say).
  void advance_past_finished_leases();
  // On a server of its own with a short lease (Needs::OwnServer): sleeps until the lease is over in real
  // time too, for servers whose leases keep real time. Does nothing when the lease is not short.
  void wait_out_lease_in_real_time();
  void crashed_on_purpose(const std::string& how);  // waits for the end of the process, restarts it
  void sigkill(const std::string& why);             // SIGKILL of the group now; restart with restart()
  void restart();   // throws CheckAborted if the grader ended the server for a limit (ServerLimits)

  // Requests a check sends by other means than send(), to servers of their own (stageN.conformance's
  // histories): recorded in the check's history as they go, so the report's timeline shows them. The op
  // record_invoke returns goes in a finding's ops to mark the request.
  std::int64_t record_invoke(const std::string& intent, const HttpRequest& request);
  void record_complete(std::int64_t op, const Exchange& x);
  void record_fault(const std::string& what, const std::string& detail);

  // Findings: every failed expectation of the check is added through these, and only these.
  //   run.add_finding({.anomaly = Anomaly::PolicyMismatch, .what = "\"stored_statuses\" does not list 201",
  //                    .operation = "GET /idempotency-policy", .received = got});
  // fail() is the same with a request the check sent as its evidence: the attempt and its exchange are shown
  // as sent and received, and a finding whose exchange lost its connection before any answer (refused, reset,
  // never accepted) is named a transport fault (no-response, with a hint about the server's accept queue and
  // threads), whatever the check asked. expect_status fails (with the exchange as evidence) unless the status
  // is one of those given and, if problem_type is not empty, the body is a problem+json of that type.
  void add_finding(Finding finding);
  void fail(Anomaly anomaly, std::string what, const Attempt* attempt = nullptr, const Exchange* x = nullptr,
            std::string expected = "");
  bool expect_status(const Exchange& x, const Attempt& attempt, std::initializer_list<int> statuses,
                     const std::string& problem_type = "", Anomaly anomaly = Anomaly::WrongStatus);
  // Appends words to the last finding's `what`: the case a loop was trying when it failed (" (amount 0)").
  void add_to_last_finding(const std::string& words);
  // The last finding is an earlier lesson's than the check's (a control step failed): that stage and its hint.
  // Not for a finding that already has a hint of its own (a transport fault, a 503 beside other requests).
  void give_last_finding_lesson(int stage, const std::string& hint);
  // A 422 idempotency-key-reused to the very bytes of the intent's first send, its key the intent's alone:
  // fail() reports it as the fingerprint's finding (once), whatever the check asked.
  bool refused_as_another(const Attempt& attempt, const Exchange& x) const;
  // A control showed this check's keys forgotten (kept_key.h: by a restart, or by the lab clock passing the
  // lease): every money moved twice in the check is then that lesson's, whichever intent it was.
  void credit_double_applies(int stage) { double_apply_lesson_ = stage; }
  const std::vector<Finding>& findings() const { return findings_; }

  // After the body: waits for every request the check sent to end, reads the ledger and the balances
  // from one quiet moment, and adds the auditor's findings.
  void finish();
  std::int64_t ledger_start() const { return ledger_start_; }
  const Balances& balances_before() const { return before_; }
  const Balances& balances_after() const { return after_; }
  // What the verdict rests on that the grader could not see (a request that never ended, a ledger that
  // never held still): empty when it saw everything. The report prints it.
  const std::string& caveat() const { return caveat_; }
  void add_caveat(const std::string& text);

 private:
  void refuse_restart_after_limit() const;   // throws CheckAborted after a limit hit: see restart()
  const Check& check_;
  Target& target_;
  History& history_;
  const std::uint64_t seed_;
  const int histories_;
  LabApi api_;
  Rng rng_;
  World world_;
  std::int64_t ledger_start_ = 0;  // the last ledger id before the check began
  // The ledger since ledger_start_ and the world's balances, read at one quiet moment.
  struct Reading {
    std::vector<LedgerEntry> ledger;
    Balances balances;
  };
  Reading read_quietly();

  void report_unretried_409(const Attempt& attempt, const Exchange& x);
  // A 409 request-in-progress where the check expected an outcome: stuck-key, said once per check, with why
  // (the request had ended; or the lease had passed on the lab clock, so in-flight keys never expire here).
  void report_stuck_key(const std::string& who, const Attempt& attempt, const Exchange& x, const std::string& want);
  // A 422 idempotency-key-reused to the very bytes of the intent's first send: fingerprint-too-strict, once.
  void report_identical_refused(const std::string& who, const Attempt& attempt, const Exchange& x,
                                const std::string& want);
  // fail()'s finding, before it is added: the attempt and the exchange as evidence, a transport fault named.
  Finding finding_with_evidence(Anomaly anomaly, std::string what, const Attempt* attempt, const Exchange* x,
                                std::string expected);

  // The history op each recorded exchange completed, by the exchange's done_ns: a finding with an exchange
  // as evidence names its op, so the report's timeline marks that attempt (grader/report/timeline_svg.h).
  void remember_op(const Exchange& x, std::int64_t op);
  // The lesson a finding of the check gave of its own (fixed_by, not the contract's) about this intent, by its
  // intent or by the requests it shows; -1 if none did.
  int lesson_found_for(const std::string& intent, const std::vector<Event>& events) const;
  // Which intents were told success, and whether only by replays of a problem (a stored refusal sent back
  // with a 2xx status): finish() credits such an intent's success without money to the replay's lesson.
  void remember_success(const Attempt& a, const Exchange& x);
  // The intent's very bytes sent again under its own key, answered as a replay (Idempotent-Replayed: true).
  bool replayed_own_request(const Attempt& a, const Exchange& x);
  bool key_shared(const Intent& intent) const;
  // Another intent's key differs from this one's only in letter case or spaces (stage2.keys-compared-exactly).
  bool key_near_another(const Intent& intent) const;
  // No request of this check was sent with the exchange's key before it (its op, by the history).
  bool first_send_of_its_key(const Exchange& x);
  void report_fresh_key_as_repeat(const std::string& who, const Attempt& attempt, const Exchange& x,
                                  const std::string& want);  // another intent of the check was sent with its key
  std::mutex ops_mutex_;
  std::map<std::int64_t, std::int64_t> op_of_exchange_;  // guarded by ops_mutex_ (bursts record from threads)
  std::set<std::string> told_success_by_replayed_problem_;  // remember_success, guarded by ops_mutex_
  std::set<std::string> told_success_otherwise_;             // likewise

  std::vector<Finding> findings_;
  std::set<std::int64_t> unretried_409s_;  // done_ns of the 409s settle() gave back and reported
  // The time bound: settle() throws CheckOverTime past it.
  std::chrono::steady_clock::time_point deadline_;
  // Keys (path, token, key header) still in progress when settle()'s patience ran out, and the 409s it gave
  // back then (done_ns -> seconds it had waited).
  std::set<std::string> stuck_keys_;
  std::map<std::int64_t, double> gave_up_on_;
  // The check moved the lab clock past the lease. Atomic: `grader soak`'s client threads set it at once
  // (soak_round.cc send_until_answered); it is only ever set, and read once they are joined, so no other
  // state has to change with it and a mutex would guard nothing more.
  std::atomic<bool> lease_passed_ = false;
  std::optional<std::size_t> stuck_finding_;  // the stuck-key finding, said once; more add to its count
  int stuck_count_ = 0;
  bool identical_refused_said_ = false;
  std::set<std::string> refused_as_another_;  // intents whose identical retry was refused 422 as another request
  std::set<std::string> answered_as_repeat_;  // intents whose first request was answered "already processed"
  std::optional<int> double_apply_lesson_;    // credit_double_applies
  // A changed body answered 409: whether an identical retry showed the key in progress too (true: stuck), or
  // answered it (false: 409 is this server's answer to another body, said once). Unset until tried.
  std::optional<bool> changed_body_409_stuck_;
  std::function<void(const std::string&)> tell_waiting_;
  std::size_t largest_burst_ = 0;          // the most requests send_simultaneously sent at once
  Balances before_, after_;
  std::string caveat_;
  InFlight in_flight_;  // joins its watches when destroyed, also when a check threw before finish()
};

// Text forms used in findings and reports.
std::string show_request(const Attempt& attempt);
std::string show_exchange(const Exchange& x);
std::string problem_type_of(const HttpResponse& res);  // "/problems/x" -> "x"; "" if not a problem

}  // namespace grader
