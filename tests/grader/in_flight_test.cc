// in_flight_test.cc: a request the client gave up on is watched until the server ends it
// (grader/record/in_flight.cc), against a one-connection server on a local socket.
#include "grader/record/in_flight.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

using namespace grader;

namespace {

constexpr std::chrono::milliseconds kServerWork{300};  // the slow server's work before it answers

// Accepts one connection, reads the request, works kServerWork, answers 201 and closes.
class SlowServer {
 public:
  SlowServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), size) == 0);
    REQUIRE(::listen(listener_, 1) == 0);
    REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &size) == 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::jthread([this] {
      int fd = ::accept(listener_, nullptr, nullptr);
      char buffer[4096];
      (void)::recv(fd, buffer, sizeof buffer, 0);
      std::this_thread::sleep_for(kServerWork);
      std::string answer = "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
      (void)::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(fd);
    });
  }
  ~SlowServer() {
    thread_.join();
    ::close(listener_);
  }
  Address address() const { return {"127.0.0.1", port_}; }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::jthread thread_;
};

}  // namespace

TEST_CASE("a lost response is lost to the client, but the audit waits until the server has answered it") {
  SlowServer server;
  History history;
  InFlight in_flight(history);
  HttpRequest request{"POST", "/transfers", {}, "{}"};
  auto op = history.invoke("check", "i1", std::nullopt, request);
  std::optional<Connection> open;
  // From before the send: the server may start its work before send_unread has stamped x.sent_ns.
  std::int64_t before_send_ns = monotonic_ns();
  Exchange x = send_unread(server.address(), request, &open);
  history.complete(op, x);
  CHECK_FALSE(x.response);  // the client never reads it
  REQUIRE(open);
  in_flight.watch(op, std::move(*open));

  auto late = in_flight.wait_all();
  auto waited = std::chrono::nanoseconds(monotonic_ns() - before_send_ns);

  CHECK(late.empty());
  CHECK(waited >= kServerWork);
  auto events = history.of_check("check");
  REQUIRE(events.size() == 3);
  CHECK(events[1].type == EventType::Unknown);  // the client's view stays unknown
  CHECK(events[2].type == EventType::Ended);    // the observer's: the server answered
  CHECK(events[2].op == op);
  REQUIRE(events[2].response);
  CHECK(events[2].response->status == 201);
}
