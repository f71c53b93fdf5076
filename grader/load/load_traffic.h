// load_traffic.h: the clients of `grader load`, one kind of client per function, each on its own thread
// and its own connection. docs/reference/plumbing.md "Plumbing" (Reliability, "Load"); the phases are in load.h.
//
//   LoadBank bank = ...;                                   // accounts and tokens, made by load.cc
//   ClientLog log = run_mixed_client(bank, i, plan);        // new transfers, retries, simultaneous copies
//   ClientLog log = run_healthy_client(bank, i, plan);      // one new transfer after another
//   SlowLog slow = run_slow_socket(bank, plan, started);    // a request head at 4 bytes a second
//   IdleLog idle = run_idle_connection(bank, i, plan, started);   // one request, then silence
//
// What a client expects of each answer is what the contract says (docs/reference/http-contract.md "The HTTP contract"):
//   a new key                  201, not replayed
//   a retry of a completed key 201 with Idempotent-Replayed: true and the first 201's body, byte for byte
//   two copies sent at once    one 201; the other 409 request-in-progress, or the same 201 replayed
// Anything else, no answer included, is a violation, kept in the ClientLog with what was sent.
//
// Thread safety: each client writes only its own log; LoadBank and LoadPlan are read-only.
#pragma once

#include <chrono>
#include <cstdint>
#include <latch>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grader/wire/wire.h"

namespace grader {

using LoadClock = std::chrono::steady_clock;

// A client's answer may take this long before the client counts it as starved (and a healthy client gives
// up and sends its next request). A transfer takes about a millisecond on loopback; 3 s is a queue of
// thousands of them, or a server that stopped serving this connection.
constexpr std::chrono::milliseconds kLoadPatience{3'000};
// After a phase stops sending, its last requests may take this long to be answered. Longer than the
// patience on purpose: a starved request's real wait is measured, not cut off at the patience.
constexpr std::chrono::milliseconds kDrainPatience{15'000};

struct LoadAccount {
  std::int64_t id = 0;
  std::string token;  // its owner's bearer token
  std::int64_t opening_balance = 0;
};

// The accounts the load moves money between, and the run's tag. Read-only while clients run.
struct LoadBank {
  Address server;
  std::string nonce;  // in every key and memo of the run: "load-<nonce>-..." and "load #<nonce>...."
  std::vector<LoadAccount> accounts;
};

// When a phase stops sending, and when its clients stop waiting for the last answers.
struct LoadPlan {
  std::string phase;  // "1", "2", "3": part of each key, so keys of different phases never meet
  LoadClock::time_point stop_sending;
  LoadClock::time_point stop_waiting() const { return stop_sending + kDrainPatience; }
};

// One intent: a key and the one body that every send of it carries.
struct LoadKey {
  std::string key, body, token, memo;
  std::int64_t from = 0, to = 0, amount = 0;
  std::optional<std::string> answer;  // the body of its 201: what every replay must repeat
};

// What one client saw. Merged per phase by load.cc.
struct ClientLog {
  int requests = 0, answers = 0;
  std::vector<double> latencies_ms;     // of the answered requests
  double longest_wait_ms = 0;           // also counts a request that was never answered
  bool longest_wait_answered = true;    // false: the longest wait ended without an answer
  std::map<std::string, int> statuses;  // "201", "201 replay", "409 in-progress", "no answer", "503", ...
  std::vector<std::string> violations;  // the first few, with what was sent and what came back
  int violation_count = 0;
  int sent_again = 0;  // requests sent once more after a kept-alive connection closed under them unanswered
  std::vector<LoadKey> keys;            // every key it sent, answered or not

  void merge(ClientLog&& other);
};

struct SlowLog {
  std::int64_t bytes_sent = 0;
  int closed_by_server = 0;  // the server hung up on the slow head (a read deadline), so it began again
};

struct IdleLog {
  int requests = 0, answers = 0;
  int closed_by_server = 0;  // the server closed the idle connection (a keep-alive timeout)
};

// Phases 1 and 2: one keep-alive connection sending new transfers, retries of its completed keys, and now
// and then a simultaneous copy on a second connection, until plan.stop_sending.
ClientLog run_mixed_client(const LoadBank& bank, int index, const LoadPlan& plan);

// Phase 3: a client that sends one new transfer after another, each on a new connection, and gives up on
// an answer after kLoadPatience (its key is then settled by load.cc after the phases).
ClientLog run_healthy_client(const LoadBank& bank, int index, const LoadPlan& plan);

// Phase 3: slowloris. Sends a request head that never ends, one byte every 250 ms; when the server hangs
// up, connects again and starts over. Counts `started` down once its first byte is out.
SlowLog run_slow_socket(const LoadBank& bank, const LoadPlan& plan, std::latch& started);

// Phase 3: a keep-alive connection that asks once and then stays idle, as a connection pool's spare does;
// when the server closes it, it connects again and asks again. Counts `started` down once connected.
IdleLog run_idle_connection(const LoadBank& bank, int index, const LoadPlan& plan, std::latch& started);

// Sends the key's request on new connections until it is answered 201 (or `patience` runs out): what a
// client does with a request whose answer it never got. Returns a violation, or nothing when settled.
std::optional<std::string> settle_key(const Address& server, LoadKey& key, std::chrono::milliseconds patience);

}  // namespace grader
