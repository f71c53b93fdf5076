// connection_stream.h: one client connection as cpp-httplib reads it, with limits the library lacks.
// docs/reference/plumbing.md "Reliability" (what a client can make the server read, and for how long).
//
// cpp-httplib 0.11.4 reads a request head line by line into a string that grows without bound (a 64 MiB
// header line is read whole before its length is checked), accepts any number of header lines, reads a
// chunked body or one without Content-Length until the client stops, and gives a client 5 s per read() but
// no limit for the whole request, so a client sending 4 bytes a second holds a worker for ever. The library
// reads everything through an httplib::Stream; common/guarded_server.cc hands it this one, which enforces,
// for each request:
//   - a budget for the head (request line and headers): kMaxRequestHead bytes;
//   - a budget for the body: kMaxRequestBody bytes (a body is read only up to its Content-Length, which
//     the library checks against the same limit; the budget also cuts the library's skipping of a body
//     it refused, so a declared 64 GiB is not read to the end);
//   - a deadline for the whole request, head and body: kRequestReadDeadline from its first byte.
// A read past a limit fails; the library then answers 400 (or its 413), and the error handler turns that
// into the precise problem (431 or 408) by asking limit_hit(). The connection is closed after that answer.
//
// It also keeps the head's bytes as they came (raw_head()): the library percent-decodes every header value
// it stores, and common/request_framing.cc puts the raw values back.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace lab {

inline constexpr std::size_t kMaxRequestHead = 32 * 1024;   // request line + headers: 431 past it
inline constexpr std::size_t kMaxRequestBody = 1024 * 1024; // = the library's payload limit (413)
inline constexpr std::chrono::seconds kRequestReadDeadline{10};   // the whole request, from its first byte
inline constexpr std::chrono::seconds kReadTimeout{5};   // one read() waiting for bytes (the library's 5 s)
inline constexpr std::chrono::seconds kWriteTimeout{5};  // one write() waiting for the client to take bytes

// Which limit, if any, ended the current request's reading.
enum class ReadLimit { None, HeadTooLarge, BodyTooLarge, TooSlow };

class ConnectionStream final : public httplib::Stream {
 public:
  explicit ConnectionStream(int socket_fd);

  // Waits until the next request's first byte is readable (true), or until `idle_for` passed, the peer
  // closed, or give_up() says so (false). give_up is asked every 10 ms; idle_ms is how long it has waited.
  template <typename GiveUp>
  bool wait_for_request(std::chrono::milliseconds idle_for, GiveUp give_up);

  // Starts the budgets and the deadline of a new request.
  void begin_request();
  // The request line and header lines as received (including their CRLFs), once the library read them.
  std::string_view raw_head() const { return raw_head_; }
  ReadLimit limit_hit() const { return limit_hit_; }

  // httplib::Stream
  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  enum class Wait { Ready, TimedOut, Failed };
  enum class Fill { Filled, Closed, Failed };   // Failed: an error, a read timeout or the deadline
  Wait wait_readable(std::chrono::milliseconds timeout) const;
  Fill fill_buffer();   // one recv() into buffer_, waiting at most kReadTimeout and never past the deadline
  ssize_t fail(ReadLimit why);

  int fd_;
  std::string buffer_;          // received, not yet handed to the library (may hold the next request)
  std::size_t buffer_pos_ = 0;
  bool in_head_ = true;
  std::string raw_head_;
  std::size_t body_read_ = 0;
  std::chrono::steady_clock::time_point deadline_{};
  ReadLimit limit_hit_ = ReadLimit::None;
};

template <typename GiveUp>
bool ConnectionStream::wait_for_request(std::chrono::milliseconds idle_for, GiveUp give_up) {
  using namespace std::chrono;
  if (buffer_pos_ < buffer_.size()) return true;   // a pipelined request already arrived
  constexpr milliseconds kSlice{10};
  for (milliseconds waited{0}; waited < idle_for; waited += kSlice) {
    switch (wait_readable(kSlice)) {
      case Wait::Ready: return true;
      case Wait::Failed: return false;
      case Wait::TimedOut:
        if (give_up(waited)) return false;
    }
  }
  return false;
}

}  // namespace lab
