// wire.h: HTTP/1.1 on raw sockets, the grader's only way to talk to a server. docs/reference/http-contract.md "The HTTP contract".
//
// The grader is a black box client: it sends exact bytes (a repeated header, invalid UTF-8, a body with its
// members in another order) and must know precisely when a request may have reached the server. A library
// client hides both (it retries, it normalises headers), so this file owns the socket:
//
//   Address server{"127.0.0.1", 8080};
//   Exchange x = exchange(server, request);            // connect patiently, send once, read the answer
//   if (x.response) ... else if (x.maybe_reached) ...  // no answer: the request may or may not have run
//
// The rule it keeps: connecting may be retried (nothing was sent yet), a request never is. Every request
// carries "Connection: close", so one connection is one request and its end is unambiguous.
//
// Thread safety: free functions and a move-only Connection; no shared state.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace grader {

using Headers = std::vector<std::pair<std::string, std::string>>;  // in order, repeats kept

struct Address {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string authority() const { return host + ":" + std::to_string(port); }
};

struct HttpRequest {
  std::string method = "GET";
  std::string target = "/";  // path and query
  Headers headers;           // sent exactly as given; Host, Content-Length and Connection are added
  std::string body;
  bool keep_alive = false;  // false: "Connection: close", one request per connection (the grader's rule)
  std::string to_wire(const Address& to) const;
};

struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
  std::optional<std::string> header(std::string_view name) const;  // first line with that name, any case
  std::string media_type() const;                                  // Content-Type without parameters, lower case
};

// How one request ended. No response means the client cannot know whether the server executed it.
struct Exchange {
  std::optional<HttpResponse> response;
  bool maybe_reached = false;  // bytes of the request left this process
  std::string error;           // why there is no response
  std::int64_t sent_ns = 0;    // monotonic: when the last byte was sent
  std::int64_t done_ns = 0;    // monotonic: when the response (or the error) came
};

std::int64_t monotonic_ns();

// Patience while connecting: a learner's server may have a listen backlog of 5, so a burst is refused or
// dropped at first. Connecting sends nothing, so it is always safe to try again.
constexpr std::chrono::milliseconds kConnectPatience{5'000};
// How long a response may take. Lab delays are at most 10 s (docs/reference/lab-controls.md "Lab controls"), so this is above that.
constexpr std::chrono::milliseconds kResponseTimeout{15'000};

// The largest answer the grader reads: a lab answer is a few hundred bytes, the largest a ledger page
// (lab_api.cc reads them in pages that fit). A larger one is an error, not read further, so that a server
// padding every answer cannot grow the grader's memory beyond a burst's worth of this (docs/teach/grader-for-courses.md "Untrusted
// servers").
constexpr std::size_t kMaxResponseBytes = 1024 * 1024;
// The most header fields one answer may have (a lab answer has under ten): a megabyte of tiny fields would
// cost the grader ten times that once parsed.
constexpr std::size_t kMaxResponseHeaders = 100;

// One open connection. Move-only; closes on destruction.
class Connection {
 public:
  static std::optional<Connection> open_patiently(const Address& to, std::chrono::milliseconds patience,
                                                  std::string* error);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  ~Connection();

  bool send_all(std::string_view bytes, std::string* error);
  // Half-closes the connection: the server reads the end of the stream after the bytes sent, so a request
  // cut short is refused or dropped at once instead of after the server's read timeout. The answer to what
  // was sent can still be read. (fuzz/http_mutator.cc sends truncated requests.)
  void finish_sending();
  // Reads one response (Content-Length, chunked, or up to the end of the stream). *timed_out, if given,
  // says whether it gave up because the time ran out (the server may still be working on the request).
  std::optional<HttpResponse> read_response(std::chrono::milliseconds timeout, std::string* error,
                                            bool* timed_out = nullptr);
  // Closes the socket now (also done by the destructor).
  void abandon();
  // For a kept-alive connection: true if the server has closed it (or sent bytes nobody asked for), so a
  // request must not be sent on it. Does not wait.
  bool unusable() const;

 private:
  explicit Connection(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Connect patiently, send the request once, read the answer. If no answer came because the time ran out
// and `unfinished` is given, the still-open connection is moved there instead of closed, so its caller can
// learn when the server ends the request (grader/record/in_flight.h).
Exchange exchange(const Address& to, const HttpRequest& request, std::chrono::milliseconds timeout = kResponseTimeout,
                  std::chrono::milliseconds connect_patience = kConnectPatience,
                  std::optional<Connection>* unfinished = nullptr);

// Send the request and return without reading: the response is lost to the client on purpose. The
// connection is moved to *open, still open: the server sees an ordinary client, and an observer can read
// the answer the client never will (grader/record/in_flight.h).
Exchange send_unread(const Address& to, const HttpRequest& request, std::optional<Connection>* open);

// Parses a complete response held in memory (exposed for the unit tests). Returns nullopt if incomplete.
// awaited: set to the whole response's size while a Content-Length body is still incomplete (the reader
// then parses again only once that much is in).
std::optional<HttpResponse> parse_response(std::string_view bytes, bool stream_ended, std::string* error,
                                           std::size_t* awaited = nullptr);

}  // namespace grader
