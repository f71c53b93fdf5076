// connection_stream.cc: see connection_stream.h.
#include "common/connection_stream.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace lab {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kReceiveChunk = 4096;

// poll() for one event, retrying when a signal interrupts it.
int poll_one(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p{fd, events, 0};
  int n;
  do {
    n = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (n < 0 && errno == EINTR);
  return n;
}

void address_of(const sockaddr_storage& addr, std::string& ip, int& port) {
  char host[NI_MAXHOST];
  char service[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&addr), sizeof(addr), host, sizeof(host), service,
                  sizeof(service), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host;
    port = std::atoi(service);
  }
}

}  // namespace

ConnectionStream::ConnectionStream(int socket_fd) : fd_(socket_fd) {}

void ConnectionStream::begin_request() {
  // Bytes of a pipelined next request stay in buffer_: they are that request's first bytes.
  buffer_.erase(0, buffer_pos_);
  buffer_pos_ = 0;
  in_head_ = true;
  raw_head_.clear();
  body_read_ = 0;
  deadline_ = Clock::now() + kRequestReadDeadline;
  limit_hit_ = ReadLimit::None;
}

ConnectionStream::Wait ConnectionStream::wait_readable(std::chrono::milliseconds timeout) const {
  int n = poll_one(fd_, POLLIN, timeout);
  if (n < 0) return Wait::Failed;
  return n == 0 ? Wait::TimedOut : Wait::Ready;
}

bool ConnectionStream::is_readable() const {
  return buffer_pos_ < buffer_.size() || wait_readable(kReadTimeout) == Wait::Ready;
}

bool ConnectionStream::is_writable() const {
  return poll_one(fd_, POLLOUT, kWriteTimeout) > 0;
}

ssize_t ConnectionStream::fail(ReadLimit why) {   // the first limit hit is the one reported
  if (limit_hit_ == ReadLimit::None) limit_hit_ = why;
  return -1;
}

ConnectionStream::Fill ConnectionStream::fill_buffer() {
  using namespace std::chrono;
  auto left = duration_cast<milliseconds>(deadline_ - Clock::now());
  Wait ready = left <= milliseconds{0} ? Wait::TimedOut : wait_readable(std::min<milliseconds>(left, kReadTimeout));
  if (ready == Wait::TimedOut && Clock::now() >= deadline_) fail(ReadLimit::TooSlow);
  if (ready != Wait::Ready) return Fill::Failed;
  buffer_.erase(0, buffer_pos_);
  buffer_pos_ = 0;
  std::size_t old_size = buffer_.size();
  buffer_.resize(old_size + kReceiveChunk);
  ssize_t n;
  do {
    n = ::recv(fd_, buffer_.data() + old_size, kReceiveChunk, 0);
  } while (n < 0 && errno == EINTR);
  buffer_.resize(old_size + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  return n > 0 ? Fill::Filled : n == 0 ? Fill::Closed : Fill::Failed;
}

ssize_t ConnectionStream::read(char* ptr, size_t size) {
  if (size == 0) return 0;
  if (buffer_pos_ == buffer_.size()) {
    Fill filled = fill_buffer();
    if (filled != Fill::Filled) return filled == Fill::Closed ? 0 : -1;   // 0: the library's "end"
  }
  if (in_head_) {
    // The head is handed over up to its blank line and no further, so the next read starts the body. The
    // library stops at the first line that is only CRLF after a line ending in LF; that is "\n\r\n" here.
    std::size_t n = 0;
    while (n < size && buffer_pos_ < buffer_.size()) {
      if (raw_head_.size() >= kMaxRequestHead) return fail(ReadLimit::HeadTooLarge);
      char byte = buffer_[buffer_pos_++];
      ptr[n++] = byte;
      raw_head_ += byte;
      if (raw_head_.ends_with("\n\r\n")) {
        in_head_ = false;
        break;
      }
    }
    return static_cast<ssize_t>(n);
  }
  if (body_read_ >= kMaxRequestBody) return fail(ReadLimit::BodyTooLarge);
  std::size_t n = std::min({size, buffer_.size() - buffer_pos_, kMaxRequestBody - body_read_});
  std::copy_n(buffer_.data() + buffer_pos_, n, ptr);
  buffer_pos_ += n;
  body_read_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
  if (!is_writable()) return -1;
  ssize_t n;
  do {
    // MSG_NOSIGNAL: a client that closed gets EPIPE here, not a SIGPIPE for the whole process.
    n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) address_of(addr, ip, port);
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) address_of(addr, ip, port);
}

}  // namespace lab
