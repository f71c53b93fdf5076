// wire.cc: see wire.h. A response is read as RFC 9112 frames it:
//   response = status-line *( header-field CRLF ) CRLF [ body ]
//   body     = Content-Length bytes / chunked / everything up to the end of the stream
#include "grader/wire/wire.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <thread>

namespace grader {
namespace {

constexpr std::chrono::milliseconds kFirstConnectBackoff{5};
constexpr std::chrono::milliseconds kMaxConnectBackoff{100};
constexpr std::size_t kReadChunkBytes = 16 * 1024;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Decodes a chunked body starting at `data`; nullopt while incomplete.
std::optional<std::string> dechunk(std::string_view data, std::string* error) {
  std::string body;
  for (;;) {
    auto eol = data.find("\r\n");
    if (eol == std::string_view::npos) return std::nullopt;
    std::size_t size = 0;
    auto line = data.substr(0, eol);
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), size, 16);
    if (ec != std::errc()) {
      *error = "bad chunk size line";
      return std::nullopt;
    }
    (void)end;  // chunk extensions after the size are allowed and ignored
    data.remove_prefix(eol + 2);
    if (size == 0) return body;  // trailers are ignored: the lab sends none
    if (data.size() < size + 2) return std::nullopt;
    body.append(data.substr(0, size));
    data.remove_prefix(size + 2);
  }
}

}  // namespace

std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string HttpRequest::to_wire(const Address& to) const {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: " + to.authority() + "\r\n";
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST") out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  return out + "\r\n" + body;
}

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (iequals(n, name)) return v;
  return std::nullopt;
}

std::string HttpResponse::media_type() const {
  std::string type(trim(header("Content-Type").value_or("").substr(0, header("Content-Type").value_or("").find(';'))));
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  return type;
}

std::optional<HttpResponse> parse_response(std::string_view bytes, bool stream_ended, std::string* error,
                                           std::size_t* awaited) {
  auto head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    if (stream_ended) *error = bytes.empty() ? "connection closed with no response" : "response head cut short";
    return std::nullopt;
  }
  HttpResponse res;
  std::string_view head = bytes.substr(0, head_end);
  auto line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  // "HTTP/1.1 201 Created"
  if (status_line.size() < 12 || status_line.substr(0, 5) != "HTTP/" ||
      std::from_chars(status_line.data() + 9, status_line.data() + 12, res.status).ec != std::errc()) {
    *error = "bad status line: " + std::string(status_line.substr(0, 80));
    return std::nullopt;
  }
  while (line_end != std::string_view::npos) {
    head.remove_prefix(line_end + 2);
    line_end = head.find("\r\n");
    std::string_view line = head.substr(0, line_end);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (res.headers.size() == kMaxResponseHeaders) {
      *error = "more than " + std::to_string(kMaxResponseHeaders) + " header fields";
      return std::nullopt;
    }
    res.headers.emplace_back(std::string(line.substr(0, colon)), std::string(trim(line.substr(colon + 1))));
  }

  std::string_view rest = bytes.substr(head_end + 4);
  bool no_body = res.status == 204 || res.status == 304 || (res.status >= 100 && res.status < 200);
  if (no_body) return res;
  if (auto te = res.header("Transfer-Encoding"); te && iequals(trim(*te), "chunked")) {
    auto body = dechunk(rest, error);
    if (!body) {
      if (stream_ended && error->empty()) *error = "chunked body cut short";
      return std::nullopt;
    }
    res.body = std::move(*body);
    return res;
  }
  if (auto cl = res.header("Content-Length")) {
    std::size_t length = 0;
    auto text = trim(*cl);
    if (std::from_chars(text.data(), text.data() + text.size(), length).ec != std::errc()) {
      *error = "bad Content-Length";
      return std::nullopt;
    }
    if (length > kMaxResponseBytes) {   // refused before its body is read
      *error = "response larger than " + std::to_string(kMaxResponseBytes / 1024) + " KiB (its Content-Length)";
      return std::nullopt;
    }
    if (rest.size() < length) {
      if (stream_ended) *error = "body cut short";
      if (awaited) *awaited = head_end + 4 + length;
      return std::nullopt;
    }
    res.body = std::string(rest.substr(0, length));
    return res;
  }
  if (!stream_ended) return std::nullopt;  // no framing: the body ends with the stream
  res.body = std::string(rest);
  return res;
}

std::optional<Connection> Connection::open_patiently(const Address& to, std::chrono::milliseconds patience,
                                                     std::string* error) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(to.port));
  if (inet_pton(AF_INET, to.host.c_str(), &addr.sin_addr) != 1) {
    addrinfo hints{}, *found = nullptr;
    hints.ai_family = AF_INET;
    if (getaddrinfo(to.host.c_str(), nullptr, &hints, &found) != 0 || !found) {
      *error = "cannot resolve " + to.host;
      return std::nullopt;
    }
    addr.sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
    freeaddrinfo(found);
  }
  auto deadline = std::chrono::steady_clock::now() + patience;
  auto backoff = kFirstConnectBackoff;
  for (;;) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      *error = std::string("socket: ") + std::strerror(errno);
      return std::nullopt;
    }
    int one = 1;
    // Without TCP_NODELAY a request split in two writes (see burst) waits for a delayed ACK.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return Connection(fd);
    int why = errno;
    ::close(fd);
    if (std::chrono::steady_clock::now() + backoff > deadline) {
      *error = "cannot connect to " + to.authority() + ": " + std::strerror(why);
      return std::nullopt;
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, kMaxConnectBackoff);
  }
}

Connection::Connection(Connection&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    abandon();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}
Connection::~Connection() { abandon(); }

void Connection::abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Connection::unusable() const {
  if (fd_ < 0) return true;
  char byte;
  // 0: the server closed it; > 0: bytes nobody asked for; -1 with EAGAIN: open and quiet, so usable.
  ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

bool Connection::send_all(std::string_view bytes, std::string* error) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("send: ") + std::strerror(errno);
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void Connection::finish_sending() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

std::optional<HttpResponse> Connection::read_response(std::chrono::milliseconds timeout, std::string* error,
                                                      bool* timed_out) {
  if (timed_out) *timed_out = false;
  std::string bytes;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char chunk[kReadChunkBytes];
  std::size_t wanted = 0;   // the whole answer's size, once its head has said it (Content-Length)
  for (;;) {
    if (bytes.size() >= wanted) {   // parse again only once the bytes the head announced are all here
      if (auto res = parse_response(bytes, false, error, &wanted)) return res;
      if (!error->empty()) return std::nullopt;
      bytes.reserve(wanted);   // one allocation for the whole answer, not one per doubling
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      *error = "no response within " + std::to_string(timeout.count()) + " ms";
      if (timed_out) *timed_out = true;
      return std::nullopt;
    }
    pollfd p{fd_, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above ends the wait
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string dropped = n < 0 ? std::string("connection dropped: ") + std::strerror(errno) : "";
      auto res = parse_response(bytes, true, error);
      // A reset says more than the "closed" parse_response would report: keep the system's word for it.
      if (!res && !dropped.empty()) *error = dropped;
      if (!res && error->empty()) *error = "connection closed with no complete response";
      return res;
    }
    bytes.append(chunk, static_cast<std::size_t>(n));
    if (bytes.size() > kMaxResponseBytes) {
      *error = "response larger than " + std::to_string(kMaxResponseBytes / 1024) + " KiB";
      return std::nullopt;
    }
  }
}

Exchange exchange(const Address& to, const HttpRequest& request, std::chrono::milliseconds timeout,
                  std::chrono::milliseconds connect_patience, std::optional<Connection>* unfinished) {
  Exchange x;
  auto connection = Connection::open_patiently(to, connect_patience, &x.error);
  if (!connection) {
    x.sent_ns = x.done_ns = monotonic_ns();
    return x;  // nothing was sent: maybe_reached stays false
  }
  x.maybe_reached = true;  // from the first byte on, the server may act on it
  bool sent = connection->send_all(request.to_wire(to), &x.error);
  x.sent_ns = monotonic_ns();
  bool timed_out = false;
  if (sent) x.response = connection->read_response(timeout, &x.error, &timed_out);
  x.done_ns = monotonic_ns();
  if (timed_out && unfinished) *unfinished = std::move(connection);
  return x;
}

Exchange send_unread(const Address& to, const HttpRequest& request, std::optional<Connection>* open) {
  Exchange x;
  auto connection = Connection::open_patiently(to, kConnectPatience, &x.error);
  if (connection) {
    x.maybe_reached = true;
    if (connection->send_all(request.to_wire(to), &x.error)) {
      x.error = "response lost on purpose: the client never reads it";
      *open = std::move(connection);
    }
  }
  x.sent_ns = x.done_ns = monotonic_ns();
  return x;
}

}  // namespace grader
