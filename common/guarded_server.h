// guarded_server.h: httplib::Server with the lab's own connection loop. docs/reference/plumbing.md "Reliability".
//
// cpp-httplib 0.11.4 serves each connection on one worker of a fixed pool, for as long as the client keeps
// it: an idle keep-alive connection holds its worker for 5 s, a busy one for ever (up to the keep-alive
// count), and a slow client for as long as it trickles bytes. With a pool of N workers, N such clients stop
// the service. GuardedServer replaces the loop (the library's one virtual hook for it,
// process_and_close_socket) and keeps the library's request parsing and routing (process_request):
//   - each request is read through a ConnectionStream: bounded head and body, a deadline for the request;
//   - a connection gives its worker up when other connections wait for one: after its current response
//     (which then says "Connection: close"), or at once when it has been idle for kYieldWhenIdleFor;
//   - otherwise an idle connection is closed after kKeepAliveIdle;
//   - a connection whose descriptor the library cannot handle (>= FD_SETSIZE: it would answer 500) gets a
//     503 service-unavailable from the lab and is closed.
// The answers of the library's own errors and the framing refusals close the connection too: their body
// may be partly unread, and the next bytes are not a request (close_after_this_response()).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string_view>

#include "common/connection_stream.h"

namespace lab {

inline constexpr int kWorkerThreads = 256;   // connections served at once; more wait in the accept queue
inline constexpr std::chrono::seconds kKeepAliveIdle{5};   // an idle connection is closed after this
inline constexpr std::chrono::milliseconds kYieldWhenIdleFor{100};   // ...or after this when others wait
inline constexpr std::size_t kKeepAliveMaxCount = 100000;   // requests per connection before it is closed

class GuardedServer final : public httplib::Server {
 public:
  GuardedServer();

 private:
  bool process_and_close_socket(socket_t sock) override;
  // Every worker is busy and an accepted connection waits for one.
  bool others_wait() const;

  std::atomic<int> waiting_for_worker_{0};
  std::atomic<int> busy_workers_{0};
};

// The connection whose request the calling thread is serving, or nullptr outside a request. Handlers run on
// the connection's thread, so the pre-routing and error handlers of common/http_server.cc reach its raw
// head and the limit it hit through this.
ConnectionStream* current_connection();

// Closes the current connection after this response ("Connection: close"). No effect outside a request.
void close_after_this_response();
// Whether close_after_this_response() was called for the current request (the post-routing handler asks).
bool closing_after_this_response();

}  // namespace lab
