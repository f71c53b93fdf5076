// http_server.h: starting and stopping a lab server with cpp-httplib. docs/reference/plumbing.md "HTTP".
//
//   GuardedServer server;                                // common/guarded_server.h: the connection loop
//   configure_server(server, /*log_requests=*/true);   // fixes, problem+json errors, request log
//   server.Post("/transfers", handler);
//   return serve_until_signalled(server, "127.0.0.1", port);   // prints "listening on http://127.0.0.1:PORT"
//
// Debian 12's cpp-httplib 0.11.4 needs these run-time fixes for a server that handles bursts of retries:
//   1. set_tcp_nodelay(true): else Nagle + delayed ACK add ~40 ms to each small response;
//   2. GuardedServer's connection loop: a worker pool of kWorkerThreads, keep-alive connections that give
//      their worker up when others wait, bounded reads (common/connection_stream.h);
//   3. the raw header values and the framing checks of common/request_framing.h, before any body is read;
//   4. a listen backlog of kListenBacklog: 0.11 listens with 5, and a burst of 16 clients loses requests.
#pragma once

#include <signal.h>

#include <functional>
#include <string>
#include <string_view>

namespace httplib { class Server; }

namespace lab {

inline constexpr int kListenBacklog = 1024;       // pending connections the kernel queues for us

// Applies the fixes, installs the problem+json error and exception handlers and, if asked, the log line
// per request: method, path, Idempotency-Key, status, replayed or not, milliseconds.
// after_each_response, if given, runs once a response is complete and before it is sent (run_stage gives the
// request's database connection back to the pool there).
void configure_server(httplib::Server& server, bool log_requests, std::function<void()> after_each_response = {});

// text as it may appear in the log: every control byte (below 0x20, and 0x7f), every byte from 0x80 on
// and the backslash itself become \xHH (lower-case hex), so "a\nb" -> "a\x0ab". The log line per request
// and the error line pass all that a client chose (method, path, key) through it.
std::string escape_for_log(std::string_view text);

// The stop signals: every signal whose default action ends the process and that comes from outside it,
// so that none of them can end a lab server without its clean stop (the playground's stop includes its
// stage server's, which a default death would leave running). SIGINT (Ctrl-C), SIGTERM (kill), SIGHUP (its
// terminal closed), SIGQUIT (Ctrl-\), SIGPIPE when another process sends it (the kernel's own, for a
// write to a pipe without a reader, is the writing thread's: blocked there, it only makes that write fail
// with EPIPE; every socket write here is MSG_NOSIGNAL anyway), SIGALRM, SIGUSR1,
// SIGUSR2, SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR, SIGSTKFLT, SIGXCPU, SIGXFSZ and the real-time signals.
// Not the faults a thread raises itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT): the
// kernel delivers those to the faulting thread, blocked or not, and no sigwait can take them. Nor SIGKILL
// and SIGSTOP, which nothing can catch.
sigset_t stop_signals();

// Blocks the stop signals in the calling thread and returns them as a set. Call it in main() before any
// thread starts (run_stage does, first thing): threads inherit the mask, and a thread that does not block
// them would take a stop signal with its default action, killing the process instead of stopping the
// server cleanly. serve_until_signalled's sigwait thread then receives them.
sigset_t block_stop_signals();

// Binds (port 0: a free port), prints the listening line on stdout, serves until a stop signal.
// Returns the process exit code.
int serve_until_signalled(httplib::Server& server, const std::string& host, int port);

}  // namespace lab
