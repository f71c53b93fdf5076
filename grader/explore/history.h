// history.h: a history, the list of steps a client takes against one fresh server, and the seeded
// generator of random ones (issue 51). docs/teach/grader-checks-itself.md "Explore: random histories
// judged by the model".
//
//   History h = generate(/*seed=*/7, /*stage=*/4, /*length=*/10);  // pure: the same seed, the same history
//   for (std::size_t i = 0; i < h.size(); ++i) describe(h, i);     // "POST /transfers key k2 ... (a repeat of 1)"
//
// A step names accounts and clients by their place in the bank every run sets up first (kAccounts), never
// by the ids a server hands out, so a history means the same on every server and after shrinking. Steps:
//   Send      a POST /transfers or /payouts with a key and a body: a fresh intent, or a repeat of an
//             earlier one (identical, its amount changed, its JSON written differently, stage 6: another
//             client or endpoint using the same key string)
//   InFlight  the same request twice, the first slowed by Lab-Delay-Ms, the second sent while it runs;
//             with `takeover` the lab clock first passes the lease, so the second may take the key over
//   Crash     a request with Lab-Crash at a point, then the server started again on its database
//   Busy      a request with Lab-Fail: busy (503, nothing moves; from stage 4 the key is released)
//   Clock     POST /admin/clock: past the lease, or past the key TTL
//   Balance   GET /accounts/{id} by a client, its own account or another's
// Each kind is generated only at the stages whose contract speaks of it (stage_needed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace grader::explore {

// The bank every run sets up before the history: two clients, three USD accounts.
struct AccountSetup {
  int client;  // 0 alice, 1 bob
  std::int64_t balance;
};
inline constexpr AccountSetup kAccounts[] = {{0, 10'000}, {0, 0}, {1, 5'000}};  // a1, a2 (alice), b1 (bob)
inline constexpr int kAccountCount = 3;
inline constexpr const char* kClientNames[] = {"alice", "bob"};

// A money request as the client means it: the same intent written the same way is the same request.
struct Intent {
  bool payout = false;     // POST /payouts (a destination outside the bank) instead of /transfers
  int client = 0;          // who sends it (its token)
  std::string key;         // the Idempotency-Key
  int from = 0, to = 1;    // account places (to: transfers only)
  std::int64_t amount = 0;
  bool respelled = false;  // the same JSON written differently: members in another order, spaces, 15e2
  bool operator==(const Intent&) const = default;
};

enum class StepKind { Send, InFlight, Crash, Busy, Clock, Balance };

struct Step {
  StepKind kind = StepKind::Send;
  Intent intent;              // Send, InFlight, Crash, Busy
  std::string crash_point;    // Crash: "before-money", "after-money", "after-commit-N"
  bool takeover = false;      // InFlight: the lab clock passes the lease before the second is sent
  std::int64_t advance_ms = 0;  // Clock
  int account = 0;            // Balance: the account's place
  int asker = 0;              // Balance: the client asking
  bool operator==(const Step&) const = default;
};

using History = std::vector<Step>;

// How long the first of an InFlight pair sleeps at the server (Lab-Delay-Ms), and how long after sending it
// the second is sent: long enough that the first has claimed its key, short enough to land while it sleeps.
inline constexpr std::int64_t kInFlightDelayMs = 800;
inline constexpr std::int64_t kRepeatAfterMs = 150;

// A random history of `length` steps for a server of `stage`, from `seed` alone (grader/base/rng.h).
// `lease_ms` and `key_ttl_ms` are the server's (--lease, --key-ttl): clock steps move past them.
History generate(std::uint64_t seed, int stage, int length, std::int64_t lease_ms = 30'000,
                 std::int64_t key_ttl_ms = 86'400'000);

// The first stage whose contract speaks of step i of h (a repeat needs stage 2's key table, a changed body
// stage 3's fingerprint, a clock step stage 4's lease, another client's key stage 6's scope).
int stage_needed(const History& h, std::size_t i);

// Step i in words, with what it repeats: "POST /transfers as alice, key k2: 1500 USD a1 -> a2 (the
// request of step 1 again, amount changed)".
std::string describe(const History& h, std::size_t i);
// The bank set up before every history, in words, from kAccounts: "clients alice and bob; accounts a1 (10000
// USD) and a2 (0 USD) of alice, b1 (5000 USD) of bob".
std::string describe_setup();
// How many requests the history sends (an InFlight step sends two, a takeover three; setup not counted).
int requests_in(const History& h);

}  // namespace grader::explore
