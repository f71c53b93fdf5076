// day_log.h: the day of requests as data, and its file format. docs/teach/the-day.md "The day"; the grammar is written
// out for learners in logs/README.md and, briefly, at the top of day_log.cc.
//
//   DayLog day = read_day_log("logs/day.jsonl");     // throws DayLogError naming the line
//   for (const DayIntent& intent : day.intents) for (const DaySend& send : intent.sends) ...
//   write_day_log(out, day);                         // the same grammar back (the generator uses it)
//
// A day has clients, accounts with opening balances, and intents: one thing a client wants done (a
// transfer or a payout), with every attempt its client made at it (a DaySend): when, with which key,
// how the attempt ended for the client (answered, timed out, dropped), and the faults around it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

struct DayLogError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The name of an account no client holds: a transfer to it is refused with 404 by every stage.
inline constexpr const char* kUnknownAccount = "nobody";

struct DayAccount {
  std::string name;
  std::string client;
  std::int64_t balance = 0;  // opening balance, minor units
  std::string currency;
};

// One attempt, as the client made it.
struct DaySend {
  // When: exactly one of these. `at` (the time of day, ms since midnight: the first send of a day);
  // `after` (ms after the previous send of the intent ended for the client: answered, timed out, dropped);
  // `during` (ms after the previous send went out, while it may still run: a second click).
  std::optional<std::int64_t> at_ms, after_ms, during_ms;
  bool next_day = false;                  // sent the next day: after the clock has jumped past retention
  std::optional<std::string> key;         // default: the intent's key
  std::optional<std::int64_t> amount;     // a changed amount under the same key (the teller)
  std::optional<std::string> as_client;   // sent with another client's token
  bool reordered = false;                 // the same body, members reversed and spaced (another JSON library)
  std::int64_t delay_ms = 0;              // Lab-Delay-Ms: how long the server works on it
  std::optional<std::int64_t> timeout_ms; // the client (its gateway) gives up after this long
  bool drop = false;                      // the connection is cut right after sending (load balancer, signal)
  std::string crash;                      // "", "before-money" or "after-money": Lab-Crash
  std::int64_t clock_ms = 0;              // time that passes on the server's lab clock before this send
};

struct DayIntent {
  std::string id;      // "i00042": unique in the day
  std::string client;  // who wants it
  std::string kind;    // "transfer" or "payout"
  std::string from, to;     // account names (to: transfers)
  std::string destination;  // payouts
  std::int64_t amount = 0;
  std::string currency;  // default: the from account's
  std::string memo;      // words; the replay appends the intent's tag
  std::string story;     // which story of the day it is ("plain", "gateway-timeout", ...)
  std::string key;       // the Idempotency-Key value, unquoted
  std::string body_of;   // this client sends another intent's body (and usually its key)
  std::vector<DaySend> sends;
};

struct DayLog {
  std::string date = "2026-03-02";
  std::optional<std::uint64_t> seed;
  std::int64_t next_day_clock_ms = 25LL * 3600 * 1000;  // the jump before next-day sends: past a 24 h TTL
  std::vector<std::string> clients;
  std::vector<DayAccount> accounts;
  std::vector<DayIntent> intents;

  const DayIntent* intent(const std::string& id) const;
  const DayAccount* account(const std::string& name) const;
  bool has_client(const std::string& name) const;
  std::size_t send_count() const;
  void reindex();  // after changing intents or accounts by hand: the look-ups above use these maps

  std::map<std::string, std::size_t> intent_index, account_index, client_index;  // name -> position
};

DayLog read_day_log(const std::string& path);
DayLog parse_day_log(std::istream& in, const std::string& name);  // name: for error messages
void write_day_log(std::ostream& out, const DayLog& day);

// "09:14:03.250" <-> ms since midnight. The day opens at 09:00.
std::string clock_text(std::int64_t ms_since_midnight);
std::optional<std::int64_t> parse_clock_text(const std::string& text);
inline constexpr std::int64_t kDayOpensMs = 9LL * 3600 * 1000;
// The contract's largest amount (and balance): 2^53 - 1, the largest integer a JSON number keeps exactly.
inline constexpr std::int64_t kMaxMoney = (1LL << 53) - 1;

}  // namespace grader
