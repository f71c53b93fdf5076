// hardening_test.cc: answers found wrong in a security and reliability review, each pinned by a test so it
// stays fixed. Every stage shares the code concerned (common/), so most tests use one stage and say why.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <stdexcept>

#include "common/http_server.h"
#include "common/money_request.h"
#include "tests/e2e/world.h"

using namespace lab::testing;

// Balances are capped at 2^53 - 1 (kMaxMinorUnits). Before the cap was checked, a 1-cent transfer to a full
// account answered 201 and left it at 2^53, past what a JSON reader holds exactly.
TEST_CASE("a transfer to a full account is refused with 422 balance-limit, stored and replayed", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  const std::int64_t full = w.admin.create_account(w.alice.id, lab::kMaxMinorUnits);
  auto first = w.alice.transfer(w.from, full, 1, "to-full");
  CHECK(first.status == 422);
  CHECK(first.header("Content-Type") == "application/problem+json");
  CHECK(first.json()["type"] == "/problems/balance-limit");
  CHECK(w.alice.balance(full) == lab::kMaxMinorUnits);
  CHECK(w.alice.balance(w.from) == 10'000);
  CHECK(w.transfers() == 0);
  // The bank's refusal is the key's outcome, like a 402: the repeat gets the same bytes, replayed.
  auto repeat = w.alice.transfer(w.from, full, 1, "to-full");
  CHECK(repeat.status == 422);
  CHECK(repeat.body == first.body);
  CHECK(repeat.header("Idempotent-Replayed") == "true");
  // And the published policy says so.
  auto policy = w.alice.get("/idempotency-policy").json();
  CHECK(std::find(policy["stored_statuses"].begin(), policy["stored_statuses"].end(), 422) !=
        policy["stored_statuses"].end());
}

namespace {

// A response read off the wire, for requests that httplib's client would not send as they are (bytes that
// are not UTF-8 in a header, a malformed request line).
struct RawReply {
  int status = 0;
  std::string head;   // status line and headers
  std::string body;
  nlohmann::json json() const { return nlohmann::json::parse(body); }
};

// Sends `request` byte for byte on a new connection and reads until the server closes it (send
// Connection: close). With half_close, the client then shuts its sending side, as `nc -N` does: the server
// reads the end of the stream after the request. Throws if the server cannot be reached.
RawReply raw_exchange(int port, const std::string& request, bool half_close = false) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{10, 0};   // a server that never answers fails the test instead of hanging it
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    throw std::runtime_error("connect failed");
  }
  for (std::size_t sent = 0; sent < request.size();) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;   // the server may answer (and close) before reading everything, as for 414
    sent += static_cast<std::size_t>(n);
  }
  if (half_close) ::shutdown(fd, SHUT_WR);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) response.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);

  RawReply reply;
  auto end_of_head = response.find("\r\n\r\n");
  reply.head = response.substr(0, end_of_head);
  if (end_of_head != std::string::npos) reply.body = response.substr(end_of_head + 4);
  if (response.rfind("HTTP/1.1 ", 0) == 0) reply.status = std::stoi(response.substr(9, 3));
  return reply;
}

bool is_problem_json(const RawReply& reply) {
  return reply.head.find("Content-Type: application/problem+json") != std::string::npos &&
         nlohmann::json::accept(reply.body);
}

// A POST /transfers as raw bytes, with extra header lines (each ending in \r\n) and the body given.
std::string raw_transfer(const LabClient& who, const std::string& extra_headers, const std::string& body,
                         const std::string& content_type = "application/json") {
  return "POST /transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer " + who.token() +
         "\r\nContent-Type: " + content_type + "\r\n" + extra_headers + "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace

// A header byte that is not UTF-8 used to be copied into the problem's detail, where nlohmann's dump()
// threw: the client got a 500 whose body carried the library's exception text. Now the detail is written
// with the byte replaced (U+FFFD), and the answer is the 4xx the header deserves.
TEST_CASE("a non-UTF-8 byte in a header gets its 4xx problem+json, not a 500", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  const std::string body = w.body(100);
  SECTION("after the key") {
    auto reply = raw_exchange(w.server.port(), raw_transfer(w.alice, "Idempotency-Key: \"k1\"\xff\r\n", body));
    CHECK(reply.status == 400);
    CHECK(is_problem_json(reply));
  }
  SECTION("inside a key's escape") {
    auto reply = raw_exchange(w.server.port(), raw_transfer(w.alice, "Idempotency-Key: \"k\\\xff\"\r\n", body));
    CHECK(reply.status == 400);
    CHECK(is_problem_json(reply));
    if (is_problem_json(reply)) CHECK(reply.json()["type"] == "/problems/idempotency-key-malformed");
  }
  SECTION("in Content-Type") {
    auto reply = raw_exchange(w.server.port(),
                              raw_transfer(w.alice, "Idempotency-Key: \"k2\"\r\n", body, "application/\xff\xfe"));
    CHECK(reply.status == 415);
    CHECK(is_problem_json(reply));
    if (is_problem_json(reply)) CHECK(reply.json()["type"] == "/problems/unsupported-media-type");
  }
  CHECK(w.transfers() == 0);
}

// httplib slices any routed response to a request's Range, whatever the method: a POST /transfers with
// Range: bytes=0-9 used to get 201 with the first 10 bytes of its body while the money moved. RFC 9110
// section 14.2 defines Range for GET only, and this API serves small JSON documents, so every answer ignores it.
TEST_CASE("a POST with a Range header gets its whole 201 body", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  auto reply = w.send("ranged", w.body(100), {{"Range", "bytes=0-9"}});
  CHECK(reply.status == 201);
  CHECK(reply.header("Content-Range").empty());
  REQUIRE(nlohmann::json::accept(reply.body));
  CHECK(reply.json()["amount"] == 100);
  // The replay too: the stored bytes, whole.
  auto repeat = w.send("ranged", w.body(100), {{"Range", "bytes=0-9"}});
  CHECK(repeat.status == 201);
  CHECK(repeat.body == reply.body);
  CHECK(w.transfers() == 1);
}

// httplib answers some requests itself, before any route runs: a malformed request line (400), a URI over
// CPPHTTPLIB_REQUEST_URI_MAX_LENGTH (414), a Range header it cannot parse (416). Those answers used to have an
// empty body; like every error of the lab they are problem+json now (http_server.cc's error handler).
TEST_CASE("the HTTP layer's own 400, 414 and 416 are problem+json", "[e2e][stage1]") {
  World w("stage1_naive");
  SECTION("a malformed request line: 400") {
    auto reply = raw_exchange(w.server.port(), "NOT-HTTP\r\nConnection: close\r\n\r\n");
    CHECK(reply.status == 400);
    CHECK(is_problem_json(reply));
    if (is_problem_json(reply)) CHECK(reply.json()["type"] == "/problems/malformed-request");
  }
  SECTION("a URI too long: 414") {
    auto reply = raw_exchange(w.server.port(), "GET /" + std::string(10'000, 'a') +
                                                   " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    CHECK(reply.status == 414);
    CHECK(is_problem_json(reply));
    if (is_problem_json(reply)) CHECK(reply.json()["type"] == "/problems/uri-too-long");
  }
  SECTION("a Range header that cannot be parsed: 416, and nothing moved") {
    auto reply = raw_exchange(w.server.port(), raw_transfer(w.alice, "Range: bytes=z\r\n", w.body(100)));
    CHECK(reply.status == 416);
    CHECK(is_problem_json(reply));
    if (is_problem_json(reply)) CHECK(reply.json()["type"] == "/problems/range-not-satisfiable");
    CHECK(w.transfers() == 0);
  }
}

// The currency-mismatch detail used to name the target account's currency ("account 5 holds EUR") even when
// the target was another client's account: a probe for other clients' data. It now names only the caller's
// own account's currency.
TEST_CASE("a currency mismatch does not reveal the currency of another client's account", "[e2e][stage1]") {
  World w("stage1_naive");
  const auto bob = w.admin.create_client("bob");
  const std::int64_t bobs_yen = w.admin.create_account(bob.id, 0, "JPY");
  auto reply = w.alice.transfer(w.from, bobs_yen, 100, "probe");
  CHECK(reply.status == 400);
  CHECK(reply.json()["type"] == "/problems/currency-mismatch");
  CHECK(reply.body.find("JPY") == std::string::npos);
  CHECK(w.alice.balance(w.from) == 10'000);
}

// cpp-httplib 0.11.4 percent-decodes every header value it stores, so `"order%41"` and `"orderA"` were one
// key: the second request got the first one's 201, replayed, and its own transfer never ran. The values are
// now the bytes as sent (common/request_framing.h), as RFC 9110 section 5.5 says field values are.
TEST_CASE("keys that differ only by a percent escape are two keys", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  auto escaped = raw_exchange(w.server.port(), raw_transfer(w.alice, "Idempotency-Key: \"order%41\"\r\n", w.body(100)));
  CHECK(escaped.status == 201);
  auto plain = w.alice.transfer(w.from, w.to, 100, "orderA");
  CHECK(plain.status == 201);
  CHECK(plain.header("Idempotent-Replayed") != "true");
  CHECK(w.transfers() == 2);
}

// Framing the contract does not take is refused before the body is read (common/request_framing.h): before,
// a chunked body or a gzip body was read (and inflated) whole, and two Content-Lengths were a smuggling
// vector. A head over 32 KiB (common/connection_stream.h) is refused too, instead of being read without end.
TEST_CASE("bodies the contract does not take are refused before they are read", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  const std::string body = w.body(100);
  auto refused = [&](const std::string& request, int status, const std::string& type) {
    auto reply = raw_exchange(w.server.port(), request);
    CHECK(reply.status == status);
    CHECK(is_problem_json(reply));
    if (is_problem_json(reply)) CHECK(reply.json()["type"] == type);
    CHECK(reply.head.find("Connection: close") != std::string::npos);
  };
  SECTION("chunked, even before authentication") {
    refused("POST /transfers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n0\r\n\r\n", 411,
            "/problems/length-required");
  }
  SECTION("a compressed body") {
    refused(raw_transfer(w.alice, "Idempotency-Key: \"gz\"\r\nContent-Encoding: gzip\r\n", body), 415,
            "/problems/unsupported-content-encoding");
  }
  SECTION("two different Content-Lengths") {
    refused(raw_transfer(w.alice, "Idempotency-Key: \"cl\"\r\nContent-Length: 3\r\n", body), 400,
            "/problems/malformed-request");
  }
  SECTION("a head over 32 KiB") {
    std::string many;
    for (int i = 0; i < 8; ++i) many += "X-Filler-" + std::to_string(i) + ": " + std::string(5000, 'a') + "\r\n";
    refused(raw_transfer(w.alice, "Idempotency-Key: \"big\"\r\n" + many, body), 431,
            "/problems/request-head-too-large");
  }
  CHECK(w.transfers() == 0);
}

// Found by `make fuzz` (fuzz/http_mutator.cc). httplib 0.11 read the body of a POST without Content-Length up
// to the end of the connection, where RFC 9112 section 6.3 says such a request has no body: a transfer sent
// without Content-Length, its connection then half-closed, ran with the bytes after the head, and was never
// answered. The server now reads no body there (common/request_framing.cc:check_framing).
TEST_CASE("a POST without Content-Length has no body, as RFC 9112 says: nothing moves", "[e2e][stage6]") {
  World w("stage6_scope_ttl");
  const std::string head = "POST /transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                           "Authorization: Bearer " + w.alice.token() + "\r\n"
                           "Content-Type: application/json\r\nIdempotency-Key: \"no-length\"\r\n";   // no Content-Length
  SECTION("answered at once, as an empty body") {
    auto reply = raw_exchange(w.server.port(), head + "\r\n" + w.body(100));
    CHECK(reply.status == 400);
    REQUIRE(is_problem_json(reply));
    CHECK(reply.json()["type"] == "/problems/json-syntax");
  }
  SECTION("the client half-closes after the body") {
    raw_exchange(w.server.port(), head + "\r\n" + w.body(100), /*half_close=*/true);
  }
  SECTION("any Transfer-Encoding: 411 length-required") {
    auto reply = raw_exchange(w.server.port(), head + "Transfer-Encoding: gzip\r\n\r\n" + w.body(100));
    CHECK(reply.status == 411);
    REQUIRE(is_problem_json(reply));
    CHECK(reply.json()["type"] == "/problems/length-required");
  }
  CHECK(w.transfers() == 0);
  CHECK(w.alice.balance(w.from) == 10'000);
}

namespace {

// A request of `method` to `path` as raw bytes, whose Authorization header is `authorization` byte for byte.
std::string raw_with_authorization(const std::string& method, const std::string& path,
                                   const std::string& authorization, const std::string& body = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: " +
         authorization + "\r\nContent-Type: application/json\r\nIdempotency-Key: \"auth\"\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool is_unauthorized(const RawReply& reply) {
  return reply.status == 401 && is_problem_json(reply) && reply.json()["type"] == "/problems/unauthorized" &&
         reply.head.find("\r\nWWW-Authenticate: Bearer") != std::string::npos;
}

}  // namespace

// cpp-httplib 0.11 hands a header's value out through c_str(), so the servers read
// "Authorization: Bearer <token>\0anything" cut at the NUL and let it in as <token>, client and admin alike.
// A control byte is never part of a token (common/auth.h:bearer_token_of): each is now the 401 of a wrong
// token. Every stage server shares that code, but this is the door to the money, so each one is asked.
TEST_CASE("a control byte in Authorization gets 401 from every stage server, for client and admin tokens alike",
          "[e2e][auth]") {
  using namespace std::string_literals;
  // After the token, and inside it; NUL, the other C0 bytes at both ends, CR alone, HTAB inside, and DEL.
  const std::string tails[] = {"\0"s, "\0anything"s, "\x01", "\x1f", "\r", "\tx", "\x7f", "\x1b[2J"};
  for (const std::string& binary : built_stage_servers()) {
    World w(binary);
    const std::string account = "/accounts/" + std::to_string(w.from);
    for (const std::string& tail : tails) {
      INFO(binary << ", the token followed by " << lab::escape_for_log(tail));
      CHECK(is_unauthorized(raw_exchange(w.server.port(), raw_with_authorization("GET", account, "Bearer " + w.alice.token() + tail))));
      CHECK(is_unauthorized(raw_exchange(
          w.server.port(), raw_with_authorization("POST", "/transfers", "Bearer " + w.alice.token() + tail, w.body(100)))));
      CHECK(is_unauthorized(raw_exchange(w.server.port(),
                                         raw_with_authorization("POST", "/admin/clients",
                                                                "Bearer " + std::string(StageProcess::kAdminToken) + tail,
                                                                R"({"name": "mallory"})"))));
      const std::string split = tail.substr(0, tail.size() / 2) + w.alice.token() + tail.substr(tail.size() / 2);
      CHECK(is_unauthorized(raw_exchange(w.server.port(), raw_with_authorization("GET", account, "Bearer " + split))));
    }
    INFO(binary);
    // The same requests without the byte get in: what refused them was the byte. A tab after the whole value
    // is not part of it (RFC 9110 section 5.5) and changes nothing.
    CHECK(raw_exchange(w.server.port(), raw_with_authorization("GET", account, "Bearer " + w.alice.token())).status == 200);
    CHECK(raw_exchange(w.server.port(), raw_with_authorization("GET", account, "Bearer " + w.alice.token() + "\t")).status == 200);
    CHECK(raw_exchange(w.server.port(), raw_with_authorization("POST", "/admin/clients",
                                                               "Bearer " + std::string(StageProcess::kAdminToken),
                                                               R"({"name": "carol"})")).status == 201);
    CHECK(w.transfers() == 0);
    CHECK(w.alice.balance(w.from) == 10'000);
  }
}
