// history.h: every attempt the grader makes, in the order it happened. docs/teach/grader.md "The grader" (history).
//
// Verdicts are not taken from single responses while requests are still running; like Jepsen's checkers,
// the grader first records what it invoked and what came back, then judges the whole history against the
// ledger (grader/record/audit.cc). The format is a grammar at the top of history.cc; `--history FILE` keeps it.
//
//   History history;
//   auto op = history.invoke(check, intent, key, request);   // before the last byte is sent
//   history.complete(op, exchange);                          // ok, fail or unknown
//   history.observe(check, intent, 0);                       // what the ledger held at that moment
//   history.ended(op, exchange);     // a request the client gave up on, as the observer saw it end
//
//   History recent(2'000);                                   // opt in: the newest 2,000 events only
//   recent.dropped();                                        // how many it let go, and their keys
//
// The grader keeps every event (it judges whole histories); a bound is for a holder that runs without end,
// the playground's session (docs/teach/the-playground.md "The playground", limits).
// Thread safety: every method takes mutex_; bursts record from many threads at once.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "grader/wire/wire.h"

namespace grader {

// What the grader shows of a header's value, in a history and in a failure report: an Authorization value
// cut after "Bearer " and 12 characters of the token, then "..."; a shorter one, or any other header, as is.
std::string redacted_header_value(std::string_view name, const std::string& value);

// The most of a response body an event keeps. A longer one is kept as its first kKeptBodyHead bytes and a
// line with its size and SHA-256 (kept_body): two answers' kept forms are equal exactly when their bodies
// are, and the grader's memory is bounded however large the answers (a lab answer is a few hundred bytes;
// the checks judge each answer when it comes, the audit judges statuses and the ledger).
constexpr std::size_t kKeptBodyBytes = 16 * 1024;
constexpr std::size_t kKeptBodyHead = 1024;
std::string kept_body(const std::string& body);

enum class EventType { Invoke, Ok, Fail, Unknown, Observe, Fault, Ended };
std::string_view to_string(EventType type);

struct Event {
  EventType type = EventType::Invoke;
  std::int64_t op = 0;  // pairs an invoke with its completion; 0 for observe and fault
  double t_ms = 0;      // monotonic, milliseconds since the history began
  std::string check;
  std::string intent;                    // the client's one intention; retries of it share the id
  std::optional<std::string> key;        // the Idempotency-Key value as sent, if any
  HttpRequest request;                   // invoke only
  std::optional<HttpResponse> response;  // ok and fail; ended, if the server answered
  std::string error;                     // unknown: why no response came; ended: how it ended, if not answered
  std::int64_t ledger_entries = 0;       // observe only
  std::string fault;                     // fault only: "lab-crash", "sigkill", "restart", "clock", "wait"
  std::string detail;                    // fault only
};

class History {
 public:
  // What a bounded history let go of. A completion or an ended whose invoke was already dropped is dropped
  // too (counted, not streamed): an answer is kept only with its request.
  struct Dropped {
    std::int64_t events = 0;
    std::set<std::string> keys;  // the Idempotency-Key of each dropped invoke, at most keep_at_most of them
    bool every_key = false;      // more distinct keys than that were dropped: any key may have lost events
  };

  // keep_at_most 0: every event (the grader). Otherwise the oldest events go once there are more.
  explicit History(std::size_t keep_at_most = 0);
  // Streams each event as one JSON line to `out` too (nullptr: keep in memory only).
  void stream_to(std::ostream* out);

  std::int64_t invoke(const std::string& check, const std::string& intent, const std::optional<std::string>& key,
                      const HttpRequest& request);
  // ok: 2xx. fail: any other status (a definite answer that nothing, or something else, happened).
  // unknown: no response, so the request may or may not have run.
  void complete(std::int64_t op, const Exchange& exchange);
  void observe(const std::string& check, const std::string& intent, std::int64_t ledger_entries);
  void fault(const std::string& check, const std::string& what, const std::string& detail);
  // The observer's view of an op whose client gave up on it (completed unknown): the server answered or
  // closed the connection at exchange.done_ns, or (error "no response within ...") it did not, in time.
  // Not the client's view: the auditor never counts it as a success told to a client.
  void ended(std::int64_t op, const Exchange& exchange);

  // Events of one check, in time order.
  std::vector<Event> of_check(const std::string& check) const;
  Dropped dropped() const;

  static nlohmann::json to_json(const Event& event);

 private:
  void append(Event event);                       // requires mutex_
  const Event* invoke_of(std::int64_t op) const;  // requires mutex_; nullptr once dropped

  const std::int64_t start_ns_;       // constant after construction
  const std::size_t keep_at_most_;    // constant after construction; 0: no bound
  mutable std::mutex mutex_;
  // Guarded by mutex_. Event numbers count every event appended, dropped ones included: events_ holds
  // numbers first_event_ onwards; open_ holds the event number of each op's invoke, ops first_op_ onwards.
  std::deque<Event> events_;
  std::deque<std::size_t> open_;
  std::size_t first_event_ = 0;
  std::int64_t first_op_ = 1, next_op_ = 1;
  Dropped dropped_;
  std::ostream* out_ = nullptr;
};

}  // namespace grader
