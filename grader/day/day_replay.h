// day_replay.h: `grader day replay`: sends every attempt of a day to a real server, as its clients sent
// them, and collects what the audit needs. docs/teach/the-day.md "The day" (the replay).
//
//   DayReplay replay = replay_day(day, target, {.workers = 64});
//   DayDamage damage = audit_day(day, replay);           // grader/day/day_audit.h
//
// How time is kept: intents start in the day's order, on a clock that runs `speed` times faster than real
// time (by default fast enough to start about 10,000 intents a second, but at most 10,000 times faster, so
// that intents a minute apart on the day's clock stay 6 ms apart), up to `workers` clients at once. Time inside an intent is kept in real milliseconds: a send waits
// its "after" or "during", a client gives up after its "timeout_ms" (it closes the connection and never
// reads the answer), a "drop" cuts the connection right after sending. A "crash" send makes the server
// _exit (Lab-Crash); the replay restarts it on the same database while no other request is in flight, and
// sends that found it down are sent again (nothing of them had left the client). "clock_ms" moves the lab
// clock; next-day sends go after every send of the day has ended and the clock has jumped past retention.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grader/day/day_log.h"
#include "grader/wire/lab_api.h"
#include "grader/wire/target.h"

namespace grader {

// One send as it went: what the client sent and what it got (nothing, when it timed out, dropped the
// connection or the server died).
struct SentAttempt {
  std::size_t intent = 0;  // index in DayLog::intents
  std::size_t send = 0;    // index in the intent's sends
  std::string key;         // as sent (with the run's prefix)
  std::string body;        // the bytes sent
  std::int64_t amount = 0; // the amount the body asked for
  std::string client;      // whose token was used
  std::optional<int> status;
  std::string content_type, response_body;
  bool replayed = false;  // Idempotent-Replayed: true
  std::string error;      // why no answer
  double start_ms = 0, end_ms = 0;  // since the replay began
};

struct DayReplay {
  std::string nonce;                                // prefixes keys, and tags memos: "#<nonce>.<intent>"
  std::map<std::string, std::int64_t> account_id;   // account name -> id on the server
  std::map<std::string, std::string> client_token;  // client name -> bearer token
  std::vector<SentAttempt> attempts;
  std::vector<LedgerEntry> ledger;                  // entries made during the replay
  std::map<std::int64_t, std::int64_t> balances;    // account id -> balance at the end
  std::optional<std::int64_t> next_day_from_ms;     // lab clock: entries from here on are the next day's
  int restarts = 0;
  bool crashes_skipped = false;  // --url: the replay cannot restart the server, so it sent no Lab-Crash
  double seconds = 0;

  std::string tag(const DayIntent& intent) const;  // the tag of the intent whose body it sends
};

struct ReplayConfig {
  int workers = 64;       // clients sending at once
  double speed = 0;       // day time / real time between intents; 0: the default above
  bool progress = false;  // a progress line on stderr
};

// Throws ApiError when setting up the bank fails, StartError when a restart fails.
DayReplay replay_day(const DayLog& day, Target& target, const ReplayConfig& config);

// The body as the contract orders it; `reordered`: members reversed with spaces (the same JSON value).
std::string day_body(const DayLog& day, const DayIntent& intent, const DayReplay& replay, std::int64_t amount,
                     bool reordered);

}  // namespace grader
