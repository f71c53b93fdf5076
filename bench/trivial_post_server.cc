// trivial_post_server.cc: the HTTP layer alone, for `make bench` (scripts/bench.py): POST /transfers answered
// with a fixed 201 the size of a stage's, nothing parsed, nothing stored. What is left is the cost of
// cpp-httplib (and of the lab's connection loop), the ceiling no stage can pass. docs/reference/plumbing.md "Performance".
//
//   trivial_post_server [--port P] [--guarded]
//
// plain      an httplib::Server with the settings a lab server needs to be fair to it (common/http_server.h
//            says why each): a pool of lab::kWorkerThreads, keep-alive for lab::kKeepAliveMaxCount requests,
//            TCP_NODELAY. With the library's defaults (8 workers, 5 requests per connection) 64 keep-alive
//            connections would measure the pool, not the library.
// --guarded  lab::GuardedServer with configure_server (common/guarded_server.h, common/http_server.h): the
//            connection loop, bounded reads and framing checks every stage runs behind, without a log line.
//
// Prints "listening on http://127.0.0.1:PORT" like a stage (port 0, the default: a free port); SIGINT or
// SIGTERM stop it.
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/guarded_server.h"
#include "common/http_server.h"

namespace {

// A ledger entry as a stage answers a transfer: the response is as long as the real one.
constexpr const char* kCreatedBody =
    R"({"id":1,"kind":"transfer","from_account":1,"to_account":2,"amount":1,"currency":"USD","memo":"",)"
    R"("from_balance_after":999999999999,"created_at":1700000000000,"metadata":null})";

const char* kUsage = R"(trivial_post_server: POST /transfers answered 201 with a fixed body: the HTTP layer's ceiling.

Usage: trivial_post_server [--port P] [--guarded]

  --port P     TCP port on 127.0.0.1, default 0 (a free one; see the 'listening on' line)
  --guarded    serve through the lab's own connection loop (lab::GuardedServer + configure_server), as the
               stages do; without it, a plain httplib::Server with the same pool, keep-alive and TCP_NODELAY
  --help       this text

docs/reference/plumbing.md "Performance"; scripts/bench.py runs it under wrk.
)";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "trivial_post_server: %s\nTry 'trivial_post_server --help'.\n", why.c_str());
  return 2;
}

void answer_created(const httplib::Request&, httplib::Response& res) {
  res.status = 201;
  res.set_content(kCreatedBody, "application/json");
}

}  // namespace

int main(int argc, char** argv) {
  lab::block_stop_signals();   // before any thread starts (http_server.h says why)
  int port = 0;
  bool guarded = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help") return std::fputs(kUsage, stdout), 0;
    if (arg == "--guarded") {
      guarded = true;
    } else if (arg == "--port") {
      if (i + 1 == argc) return usage_error("--port needs a value");
      char* end = nullptr;
      long value = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || end == argv[i] || value < 0 || value > 65535)
        return usage_error("--port takes a whole number from 0 to 65535");
      port = static_cast<int>(value);
    } else {
      return usage_error("unknown option " + arg);
    }
  }

  std::unique_ptr<httplib::Server> server;
  if (guarded) {
    server = std::make_unique<lab::GuardedServer>();
    lab::configure_server(*server, /*log_requests=*/false);
  } else {
    server = std::make_unique<httplib::Server>();
    server->new_task_queue = [] { return new httplib::ThreadPool(lab::kWorkerThreads); };
    server->set_keep_alive_max_count(lab::kKeepAliveMaxCount);
    server->set_tcp_nodelay(true);
  }
  server->Post("/transfers", answer_created);
  return lab::serve_until_signalled(*server, "127.0.0.1", port);
}
