// keys.h: the Idempotency-Key and the key table's rows as the contract defines them, and the two questions
// asked of a row on the lab clock: has its lease run out, has it expired.
// docs/reference/http-contract.md "The Idempotency-Key header"; docs/learn/stage-4-two-phase.md "The key's
// life"; docs/learn/stage-6-scope-ttl.md "The design" (scope, retention) and "The SQL" (kExpired).
//
//   KeyHeader k = read_idempotency_key(header_values(request.headers, "Idempotency-Key"));
//   if (!k.ok) ... k.problems: the problem types the contract allows for it (400)
//
// A row's life (stage 4; stage 6 adds the two arrows back to none by expiry):
//
//        claim                          money + complete, one transaction
//   none -----> in_progress ------------------------------------------> completed
//    ^  release |  ^   \ take over: lease run out, fence + 1                |
//    +----------+  +---+                                                   |
//    +-- expired: expires_at passed and (completed, or in_progress with its lease run out) ---+
//
// Times are spans [lo, hi] of lab ms: the model knows the lab clock only up to the real time a request takes
// to reach it, so a deadline near "now" may have passed or not (Maybe::Either), and both futures are kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grader::model {

constexpr std::size_t kMaxKeyLength = 255;  // characters after unquoting (http-contract.md)

struct KeyHeader {
  bool ok = false;
  std::string key;                    // when ok: the key, unquoted, compared byte for byte
  std::vector<std::string> problems;  // when not ok: the idempotency-key-* types allowed (usually one)
};
KeyHeader read_idempotency_key(const std::vector<std::string>& header_values);

enum class Endpoint { Transfers, Payouts };
const char* endpoint_path(Endpoint endpoint);

// The scope of a key from stage 6: (client, endpoint, key). Before it, the key alone.
struct Scope {
  std::int64_t client = 0;
  Endpoint endpoint = Endpoint::Transfers;
  std::string key;
};

struct Span {
  std::int64_t lo = 0, hi = 0;  // lab ms
  Span plus(std::int64_t ms) const { return {lo + ms, hi + ms}; }
};
enum class Maybe { No, Yes, Either };
Maybe reached(Span deadline, Span now);  // now >= deadline (take_over's locked_until <= now)

enum class KeyState { InProgress, Completed };

// What a completed row keeps (stage 4: status and what it was; stage 5: the bytes).
struct StoredAnswer {
  int status = 0;
  std::string problem;       // 4xx: its type's slug
  std::int64_t entry = -1;   // 201: the ledger entry's index in the model's bank
  bool bytes_known = false;  // the first answer was seen (not lost to a crash): replays are these bytes
  std::string content_type, body;
};

struct KeyRow {
  std::int64_t row = 0;  // one life of a key: never reused, as the row id of stage 4
  Scope scope;
  std::string fingerprint;  // the first body's canonical form
  KeyState state = KeyState::InProgress;
  int fence = 1;
  int holder = -1;  // the in-flight request holding the claim, or -1 (its holder died or finished)
  Span locked_until, expires_at;
  StoredAnswer stored;  // when completed
  int epoch = 0;         // the restarts of the process before its claim (World::restarts)
};

Maybe lease_run_out(const KeyRow& row, Span now);
Maybe expired(const KeyRow& row, Span now);  // stage 6's kExpired: expires_at passed, and completed or lease out

}  // namespace grader::model
