// in_flight.h: requests the client gave up on, watched until the server ends them. docs/teach/grader.md "The grader"
// (what it assumes about time).
//
// A lost response is lost to the client, not to the observer. The check goes on as a client would, never
// seeing the answer; but the audit must not read the ledger while the server still runs that request. On
// a slow server (a sanitizer build, a loaded machine) a lost first attempt may still be moving money when
// the check ends: its commit would land between the ledger read and the balance reads, or after both.
//
//   InFlight in_flight(history);
//   in_flight.watch(op, std::move(connection));   // a thread reads the connection to its end
//   ...
//   auto late = in_flight.wait_all();             // before the audit: what did not end in time
//
// A watched request has ended when its response came or its connection closed: the server finished it, or
// the server died (the kernel closes a dead process's sockets, so a crash the grader caused ends it too).
// Each watch gives up kWatchPatience after it began, so wait_all is bounded; what gave up is reported.
// Thread safety: watch and wait_all may be called from any thread (a check's own threads send too);
// watches_ is guarded by mutex_. Destruction waits for every watch, like wait_all.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "grader/record/history.h"
#include "grader/wire/wire.h"

namespace grader {

// How long the observer waits for the end of a request the client gave up on: a client's own patience
// for a response (kResponseTimeout, above the lab's longest delay). A server that takes longer is not
// waited for: the audit goes on, and the report says which request it did not see end.
constexpr std::chrono::milliseconds kWatchPatience = kResponseTimeout;

class InFlight {
 public:
  explicit InFlight(History& history) : history_(history) {}
  ~InFlight() { wait_all(); }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

  // Reads `connection` on a thread of its own until the server ends the request; records it in the
  // history as an "ended" event of `op` (the client's own completion, "unknown", is already there).
  void watch(std::int64_t op, Connection connection);
  // Waits for every watch begun so far. Returns one line per request that did not end within
  // kWatchPatience: the audit that follows may not see what that request did.
  std::vector<std::string> wait_all();

 private:
  struct Watch {
    std::int64_t op = 0;
    bool ended = false;  // written by the watch's thread, read after join
    std::jthread reader;
  };
  History& history_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Watch>> watches_;  // guarded by mutex_
};

}  // namespace grader
