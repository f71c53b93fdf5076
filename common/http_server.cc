// http_server.cc: see http_server.h.
#include "common/http_server.h"

#include <httplib.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "common/connection_stream.h"
#include "common/db.h"
#include "common/guarded_server.h"
#include "common/hex.h"
#include "common/http_reply.h"
#include "common/problem.h"
#include "common/request_framing.h"

namespace lab {
namespace {

using Clock = std::chrono::steady_clock;

// The request's start, per worker thread: httplib runs routing and the logger on the same thread.
thread_local Clock::time_point request_started{};

bool use_colour() { return isatty(STDERR_FILENO) && std::getenv("NO_COLOR") == nullptr; }

void log_request(const httplib::Request& req, const httplib::Response& res) {
  static const bool colour = use_colour();
  double ms = request_started == Clock::time_point{}
                  ? 0.0
                  : std::chrono::duration<double, std::milli>(Clock::now() - request_started).count();
  request_started = {};
  std::string key = req.has_header("Idempotency-Key") ? escape_for_log(req.get_header_value("Idempotency-Key")) : "-";
  bool replayed = res.get_header_value(kReplayedHeader) == "true";
  const char* on = "";
  const char* off = "";
  if (colour) {
    on = res.status >= 500 ? "\033[31m" : res.status >= 400 ? "\033[33m" : "\033[32m";
    off = "\033[0m";
  }
  // One fprintf per line: stdio locks the stream, so lines of concurrent requests never interleave.
  // Everything the client chose is escaped: httplib decodes %0a and %1b in the path, and a raw newline or
  // ESC would forge a log line or drive the reader's terminal.
  std::fprintf(stderr, "%s %s key=%s %s%d%s replayed=%s %.1fms\n", escape_for_log(req.method).c_str(),
               escape_for_log(req.path).c_str(), key.c_str(), on, res.status, off, replayed ? "yes" : "no", ms);
}

// After httplib failed to bind host:port: was it because another socket listens there? httplib does not
// keep bind's errno, so bind a plain socket (SO_REUSEADDR, as ours) to the same address and look.
bool port_in_use(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return false;
  bool in_use = false;
  for (addrinfo* a = found; a != nullptr && !in_use; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    in_use = ::bind(fd, a->ai_addr, a->ai_addrlen) != 0 && errno == EADDRINUSE;
    ::close(fd);
  }
  freeaddrinfo(found);
  return in_use;
}

}  // namespace

std::string escape_for_log(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte >= 0x7f || byte == '\\') {
      out += "\\x" + lowercase_hex(std::span<const unsigned char>(&byte, 1));
    } else {
      out += ch;
    }
  }
  return out;
}

sigset_t stop_signals() {
  static constexpr int kStopSignals[] = {SIGHUP,    SIGINT,  SIGQUIT, SIGTERM, SIGPIPE, SIGALRM,   SIGUSR1, SIGUSR2,
                                         SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR,  SIGSTKFLT, SIGXCPU, SIGXFSZ};
  sigset_t set;
  sigemptyset(&set);
  for (int s : kStopSignals) sigaddset(&set, s);
  // SIGRTMIN, not 32: glibc keeps the first real-time signals for its threads and says where ours begin.
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) sigaddset(&set, s);
  return set;
}

sigset_t block_stop_signals() {
  sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

void configure_server(httplib::Server& server, bool log_requests, std::function<void()> after_each_response) {
  server.set_tcp_nodelay(true);
  server.set_payload_max_length(kMaxRequestBody);

  // Runs after the head is read and before the body is (common/request_framing.h). httplib hands this handler
  // a const Request, but the object is its own non-const local (Server::process_request), so changing it
  // here is well defined.
  server.set_pre_routing_handler([](const httplib::Request& const_req, httplib::Response& res) {
    request_started = Clock::now();
    auto& req = const_cast<httplib::Request&>(const_req);
    if (const ConnectionStream* connection = current_connection())
      restore_raw_header_values(req, connection->raw_head());
    // Range is ignored, on every route. httplib parses a Range header into req.ranges before routing and,
    // after the handler, cuts any response down to it, whatever its method and status: a POST /transfers
    // with Range: bytes=0-9 would get 201 and ten bytes of the body while the money moved. RFC 9110 section
    // 14.2 defines Range for GET only, and lets a server ignore it there too; the lab's answers are small
    // JSON documents, so no route honours it. (A Range that httplib cannot parse is answered 416 before
    // routing, so before this handler: nothing moves, and the error handler below gives it a problem+json
    // body.)
    req.ranges.clear();
    if (std::optional<Problem> refused = check_framing(req)) {
      // The body, if any, stays unread: the connection cannot carry another request.
      close_after_this_response();
      reply_problem(res, *refused);
      if (refused->type == ProblemType::UnsupportedContentEncoding) res.set_header("Accept-Encoding", "identity");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Runs last, after httplib added its Keep-Alive header: a response after which the connection closes says so.
  server.set_post_routing_handler([after_each_response](const httplib::Request&, httplib::Response& res) {
    if (after_each_response) after_each_response();
    if (!closing_after_this_response()) return;
    res.headers.erase("Keep-Alive");
    res.set_header("Connection", "close");
  });
  // httplib's own errors arrive with an empty body: give them problem+json, like every error of the lab.
  // They are answered before any route runs (see httplib's Server::process_request): a malformed request line
  // or header (400), a URI over CPPHTTPLIB_REQUEST_URI_MAX_LENGTH (414), a Range header it cannot parse (416),
  // a body over kMaxRequestBody (413); and no route (404). Any other empty error is the server's fault (500).
  // A read that stopped at one of ConnectionStream's limits reaches here as the library's 400 (or 413).
  // After any of them but 404 the connection is closed: what follows on it may be the rest of a body.
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status != 404) close_after_this_response();
    const ConnectionStream* connection = current_connection();
    ReadLimit limit = connection != nullptr ? connection->limit_hit() : ReadLimit::None;
    if (limit == ReadLimit::HeadTooLarge)
      return reply_problem(res, Problem::Of(ProblemType::RequestHeadTooLarge,
                                            "the request line and headers are longer than 32 KiB"));
    if (limit == ReadLimit::TooSlow)
      return reply_problem(res, Problem::Of(ProblemType::RequestTimeout,
                                            "the request did not arrive within 10 seconds of its first byte"));
    switch (res.status) {
      case 400:
        return reply_problem(res, Problem::Of(ProblemType::MalformedRequest, "the request is not valid HTTP/1.1"));
      case 404: return reply_problem(res, Problem::Of(ProblemType::RouteNotFound, "no such route"));
      case 413:
        return reply_problem(res,
                             Problem::Of(ProblemType::BodyTooLarge, "the body is larger than the server accepts"));
      case 414:
        return reply_problem(res, Problem::Of(ProblemType::UriTooLong, "the request's URI is too long"));
      case 416:
        return reply_problem(res, Problem::Of(ProblemType::RangeNotSatisfiable,
                                              "the Range header cannot be parsed (the lab ignores Range)"));
      default:
        if (res.status >= 500) return reply_problem(res, Problem::Of(ProblemType::InternalError, "internal error"));
    }
  });
  server.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    try {
      std::rethrow_exception(ep);
    } catch (const DatabaseBusy&) {
      reply_database_busy(res);
    } catch (const std::exception& e) {
      // The exception's text is for the operator, not the client: it can name files, SQL or library
      // internals. The log gets it (escaped); the answer says only that the fault is the server's.
      std::fprintf(stderr, "error: %s %s: %s\n", escape_for_log(req.method).c_str(), escape_for_log(req.path).c_str(),
                   escape_for_log(e.what()).c_str());
      reply_problem(res, Problem::Of(ProblemType::InternalError, "internal error"));
    } catch (...) {
      std::fprintf(stderr, "error: %s %s: an exception that is not a std::exception\n",
                   escape_for_log(req.method).c_str(), escape_for_log(req.path).c_str());
      reply_problem(res, Problem::Of(ProblemType::InternalError, "internal error"));
    }
  });
  if (log_requests) server.set_logger(log_request);
}

int serve_until_signalled(httplib::Server& server, const std::string& host, int port) {
  // Capture the listening socket so its backlog can be raised after httplib's listen(fd, 5).
  std::atomic<int> listening_fd{-1};
  // Not httplib::default_socket_options: on Linux it sets SO_REUSEPORT, with which a second server (another
  // database!) binds the same port and the kernel splits the connections between the two. SO_REUSEADDR
  // alone still lets a restarted server bind at once over the old connections in TIME_WAIT, but fails
  // with EADDRINUSE while another socket listens there.
  server.set_socket_options([&listening_fd](socket_t fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listening_fd = fd;
  });

  // The stop signals are taken by one thread with sigwait, which may safely call server.stop();
  // a signal handler may not. run_stage blocked them before any thread started; blocking again here
  // covers a caller that did not (harmless, but then its earlier threads could still take a signal).
  sigset_t stop_signals = block_stop_signals();

  int bound_port = port;
  if (port == 0) {
    bound_port = server.bind_to_any_port(host);
    if (bound_port < 0) bound_port = 0;
  } else if (!server.bind_to_port(host, port)) {
    bound_port = 0;
  }
  if (bound_port == 0) {
    if (port != 0 && port_in_use(host, port))
      std::fprintf(stderr, "error: port %d is in use: another process listens on %s:%d\n", port, host.c_str(), port);
    else
      std::fprintf(stderr, "error: cannot listen on %s:%d (not an address of this machine?)\n", host.c_str(), port);
    return 1;
  }
  if (listening_fd >= 0 && ::listen(listening_fd, kListenBacklog) != 0)
    std::perror("warning: cannot raise the listen backlog");

  std::thread([&server, stop_signals] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    const char* name = sigabbrev_np(signal_number);   // "TERM"; nullptr for a real-time signal
    if (name != nullptr) std::fprintf(stderr, "received SIG%s, stopping\n", name);
    else std::fprintf(stderr, "received signal %d, stopping\n", signal_number);
    server.stop();
  }).detach();

  std::printf("listening on http://%s:%d\n", host.c_str(), bound_port);
  std::fflush(stdout);
  bool clean = server.listen_after_bind();
  return clean ? 0 : 1;
}

}  // namespace lab
