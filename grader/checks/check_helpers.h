// check_helpers.h: small set-ups and predicates the check files share, so each check reads as its story.
#pragma once

#include <algorithm>
#include <functional>
#include <future>
#include <string>

#include "grader/checks/check_run.h"

namespace grader {

constexpr std::size_t kBodyLimitBytes = 16 * 1024;  // docs/reference/http-contract.md: 413 over 16 KiB

struct TwoAccounts {
  ClientInfo* owner = nullptr;
  Account* from = nullptr;
  Account* to = nullptr;
};

// A new client with two accounts of random opening balances (the world's currency).
TwoAccounts client_with_two_accounts(CheckRun& run, const std::string& role);
// One more account of `owner` with a random opening balance (the world's currency).
Account& account_with_random_opening(CheckRun& run, const ClientInfo& owner);
// An amount the source can afford several times over.
std::int64_t affordable_amount(CheckRun& run, const Account& from);

// Names a wrong answer to a request that should have been refused: a success is `if_success` (the server
// answered as if it were a new or the same request); a 409 in progress while nothing runs is a stuck key;
// any other status is a wrong status.
Anomaly anomaly_of_wrong_answer(const Exchange& x, Anomaly if_success);

// A request valid per the contract refused by validation (a 400, 413 or 415 to a legal amount spelling,
// media type or key) is a fault of the server's validation, not of the check's lesson (a fingerprint, a key table): a
// wrong-status finding with `hint`, which says what the contract allows, so the report names the contract
// as what fixes it. Returns false (and adds nothing) when the answer is not such a refusal.
bool fail_if_refused_valid(CheckRun& run, const Attempt& attempt, const Exchange& x, const std::string& what,
                           const std::string& hint);

// Names what is wrong with an answer that came while the first request was still running: a success with
// no money in the ledger yet is the in-flight lie; one with a second transfer is a double apply.
Anomaly anomaly_of_early_answer(CheckRun& run, const Exchange& x, const Intent& intent);

// The contract's own words for its headers and order (docs/reference/http-contract.md "Status codes and their
// order"), for findings whose fix is the contract, not a stage's lesson (fixed_by 0).
constexpr const char* kRetryAfterHint =
    "every 409 request-in-progress and 503 service-unavailable carries Retry-After: a whole number of seconds";
constexpr const char* kOrderHint =
    "answer the first step a request fails: the token (401), then the Idempotency-Key (400), then the body "
    "(415, 413, 400)";
constexpr const char* kClaimHoldsHint =
    "claim the key as in_progress before the work; the claim answers every repeat 409 for --lease seconds of "
    "the lab clock (read the flag in seconds), until the request completes it";
// A repeat sent while the first request still ran, as a control before a check's own step (a clock moved,
// another key failed): it must be 409. If not, the finding says when it was sent (`when`: "before the lab
// clock moved"), and the check does not ask its own question, whose cause the control has not ruled out; the
// finding is stage 4's lesson, with kClaimHoldsHint. Returns whether it held.
bool expect_held(CheckRun& run, const Exchange& x, const Attempt& repeat, Anomaly anomaly, const std::string& when);

// A request on its own thread (a slow first request), while the check goes on and sends its repeat.
std::future<Exchange> send_in_background(CheckRun& run, const Attempt& attempt);

bool is_success(const Exchange& x);  // any 2xx
// The answer says it is a replay (Idempotent-Replayed: true, or the header a policy names).
bool says_replayed(const Exchange& x, const std::string& header = "Idempotent-Replayed");
// A first answer is never a replay (docs/learn/stage-5-replay.md "Stage 5: replay the stored response", the design): a server that marks it so lies to the
// client about what happened, whatever the body. A finding (replay-mismatch) if it says it is one.
void expect_not_marked_replay(CheckRun& run, const Attempt& attempt, const Exchange& first);
bool is_in_progress(const Exchange& x);  // 409 request-in-progress
// The Retry-After of an answer as RFC 9110 section 10.2.3 delay-seconds (1*DIGIT, a whole number of
// seconds); nothing when it is missing or spelled otherwise ("0.5", "1s", an HTTP date).
std::optional<std::int64_t> retry_after_seconds(const Exchange& x);
int status_of(const Exchange& x);    // 0 when no response
// The "id" member of a JSON body, if there is one.
std::optional<std::int64_t> entry_id(const Exchange& x);

// Lab controls (docs/reference/lab-controls.md "Lab controls"): how long a race needs, not longer.
constexpr const char* kLabDelay = "Lab-Delay-Ms";
constexpr const char* kLabCrash = "Lab-Crash";
constexpr const char* kLabFail = "Lab-Fail";
// The lease checks run on a server of their own with a lease of one second, so that a server whose leases
// keep real time can be seen to take over and to fence (docs/teach/grader.md "What it assumes about time").
inline const ServerFacts kShortLease{.lease_seconds = 1, .key_ttl_seconds = 86'400};
// stage4.crash-before-money judges a retry sent right after a crash and a restart: it must fall inside the
// crashed claim's lease however long the restart took, or the verdict would depend on the machine's speed (a
// server that restarts in 3 s under load would find a 1 s lease over and pass). Five seconds outlast a slow
// restart and are still waited out in real time for a server whose lease keeps real time.
inline const ServerFacts kCrashLease{.lease_seconds = 5, .key_ttl_seconds = 86'400};
// The delay a burst holds its winner in, so losers arrive while it runs (milliseconds).
constexpr int kBurstDelayMs = 300;
// A slow first request, and how long after it a repeat is sent (it must land inside the delay).
constexpr int kSlowFirstDelayMs = 500;
constexpr std::chrono::milliseconds kRepeatAfter{150};

// A verdict must not depend on how loaded the machine is. A repeat meant to arrive while the first request
// sleeps (Lab-Delay-Ms) still arrives after it finished when the machine is slow enough; it is then rightly
// answered as after the first (a replay of its transfer, or a new request once the key has expired), and
// says nothing about in-flight keys. timing_of tells how it came out, from the two answers' times
// (kAnswerOrderSlack allows for a reader thread scheduled late).
enum class RepeatTiming {
  InFlight,      // a 409, or answered while the first still ran: the check judges it
  SentLate,      // sent only after the first had been answered (the grader was slow): nothing to judge
  AnsweredLate,  // sent in time, answered only after the first had been: the server was slow, or it holds
                 // a repeat until the first request ends
};
constexpr std::int64_t kAnswerOrderSlackNs = 50'000'000;
RepeatTiming timing_of(const Exchange& repeat, const Exchange& first);
// Such a check runs rounds, kInFlightRounds at most: round(times) sends its first request with
// grown_delay(base, times) for times 1, 2, 4, and the round is judged (and the check done) when it returns
// InFlight; a late round is never a finding, and the next one doubles the delay. Returns false when the
// repeat was AnsweredLate in every round: load does not do that three times over delays that double, a
// server that holds a repeat until the first request ends does (fail_held_repeat names it). After late
// rounds of both kinds, the check passes with a caveat that says it saw nothing in flight.
constexpr int kInFlightRounds = 3;
bool with_growing_delay(CheckRun& run, const std::function<RepeatTiming(int times)>& round);
// The finding for a server that held the repeat in every round (a wrong-status, with `should`: what the
// repeat should have been answered).
void fail_held_repeat(CheckRun& run, const std::string& should);
// A new transfer of `accounts`, one move expected, whose first send sleeps delay_ms after claiming its key
// (Lab-Delay-Ms), sent in the background: the start of every round of such a check.
struct SlowFirst {
  Intent& pay;
  Attempt sent;  // the first send, as it was sent (with its Lab-Delay-Ms)
  std::future<Exchange> first;
};
SlowFirst send_slow_first(CheckRun& run, const TwoAccounts& accounts, int delay_ms);
// A Lab-Delay-Ms is at most 10 s (docs/reference/lab-controls.md "Lab controls"): the base delay times `times`, within that.
constexpr int kLabDelayLimitMs = 10'000;
constexpr int grown_delay(int base_ms, int times) { return std::min(base_ms * times, kLabDelayLimitMs); }

}  // namespace grader
