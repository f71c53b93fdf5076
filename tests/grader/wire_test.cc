// wire_test.cc: reading HTTP responses off the wire (grader/wire/wire.cc).
#include "grader/wire/wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

using namespace grader;

TEST_CASE("a response with Content-Length is complete once its body has arrived") {
  std::string error;
  std::string bytes = "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}";
  auto res = parse_response(bytes, false, &error);
  REQUIRE(res);
  CHECK(res->status == 201);
  CHECK(res->body == "{\"a\":1}");
  CHECK(res->media_type() == "application/json");
  CHECK_FALSE(parse_response(bytes.substr(0, bytes.size() - 1), false, &error));
}

TEST_CASE("header names are matched without regard to case, and parameters leave the media type") {
  std::string error;
  auto res = parse_response(
      "HTTP/1.1 409 Conflict\r\nretry-after: 1\r\nCONTENT-TYPE: Application/Problem+JSON; charset=utf-8\r\n"
      "Content-Length: 0\r\n\r\n",
      false, &error);
  REQUIRE(res);
  CHECK(res->header("Retry-After") == "1");
  CHECK(res->media_type() == "application/problem+json");
}

TEST_CASE("a chunked body is decoded") {
  std::string error;
  auto res = parse_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
                            false, &error);
  REQUIRE(res);
  CHECK(res->body == "abcde");
}

TEST_CASE("a body without framing ends with the stream") {
  std::string error;
  std::string bytes = "HTTP/1.0 200 OK\r\n\r\nhello";
  CHECK_FALSE(parse_response(bytes, false, &error));
  auto res = parse_response(bytes, true, &error);
  REQUIRE(res);
  CHECK(res->body == "hello");
}

TEST_CASE("a stream that ends inside the body is no response, with a reason") {
  std::string error;
  CHECK_FALSE(parse_response("HTTP/1.1 201 Created\r\nContent-Length: 10\r\n\r\nabc", true, &error));
  CHECK(error == "body cut short");
  error.clear();
  CHECK_FALSE(parse_response("", true, &error));
  CHECK(error == "connection closed with no response");
}

TEST_CASE("a request goes out with Host, Content-Length and Connection: close, its own headers in order") {
  HttpRequest req{"POST", "/transfers", {{"Idempotency-Key", "\"a\""}, {"Idempotency-Key", "\"b\""}}, "{}"};
  std::string wire = req.to_wire(Address{"127.0.0.1", 8080});
  CHECK(wire ==
        "POST /transfers HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nIdempotency-Key: \"a\"\r\nIdempotency-Key: \"b\"\r\n"
        "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
}

TEST_CASE("a connection reset before any answer says reset, not closed") {
  // A listener on a free port that reads the request and resets the connection (linger 0: RST, not FIN).
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 1) == 0);
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &size) == 0);
  Address to{"127.0.0.1", ntohs(addr.sin_port)};
  std::thread server([listener] {
    int fd = ::accept(listener, nullptr, nullptr);
    char buf[4096];
    (void)::recv(fd, buf, sizeof buf, 0);
    linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    ::close(fd);
  });
  Exchange x = exchange(to, HttpRequest{"GET", "/healthz", {}, ""});
  server.join();
  ::close(listener);
  CHECK_FALSE(x.response);
  CHECK_THAT(x.error, Catch::Contains("reset"));
}
