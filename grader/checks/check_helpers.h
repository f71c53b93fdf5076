// check_helpers.h: small set-ups and predicates the check files share, so each check reads as its story.
#pragma once

#include <future>
#include <string>

#include "grader/checks/check_run.h"

namespace grader {

constexpr std::size_t kBodyLimitBytes = 16 * 1024;  // LAB.md: 413 over 16 KiB

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

// A request on its own thread (a slow first request), while the check goes on and sends its repeat.
std::future<Exchange> send_in_background(CheckRun& run, const Attempt& attempt);

bool is_success(const Exchange& x);  // any 2xx
// The answer says it is a replay (Idempotent-Replayed: true, or the header a policy names).
bool says_replayed(const Exchange& x, const std::string& header = "Idempotent-Replayed");
// A first answer is never a replay (LAB.md "Stage 5", the design): a server that marks it so lies to the
// client about what happened, whatever the body. A finding (replay-mismatch) if it says it is one.
void expect_not_marked_replay(CheckRun& run, const Attempt& attempt, const Exchange& first);
bool is_in_progress(const Exchange& x);  // 409 request-in-progress
// The Retry-After of an answer as RFC 9110 section 10.2.3 delay-seconds (1*DIGIT, a whole number of
// seconds); nothing when it is missing or spelled otherwise ("0.5", "1s", an HTTP date).
std::optional<std::int64_t> retry_after_seconds(const Exchange& x);
int status_of(const Exchange& x);    // 0 when no response
// The "id" member of a JSON body, if there is one.
std::optional<std::int64_t> entry_id(const Exchange& x);

// Lab controls (LAB.md "Lab controls"): how long a race needs, not longer.
constexpr const char* kLabDelay = "Lab-Delay-Ms";
constexpr const char* kLabCrash = "Lab-Crash";
constexpr const char* kLabFail = "Lab-Fail";
// The lease checks run on a server of their own with a lease of one second, so that a server whose leases
// keep real time can be seen to take over and to fence (LAB.md "What it assumes about time").
inline const ServerFacts kShortLease{.lease_seconds = 1, .key_ttl_seconds = 86'400};
// The delay a burst holds its winner in, so losers arrive while it runs (milliseconds).
constexpr int kBurstDelayMs = 300;
// A slow first request, and how long after it a repeat is sent (it must land inside the delay).
constexpr int kSlowFirstDelayMs = 500;
constexpr std::chrono::milliseconds kRepeatAfter{150};

}  // namespace grader
