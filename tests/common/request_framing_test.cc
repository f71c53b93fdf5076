// request_framing_test.cc: the raw head is split as cpp-httplib 0.11.4 splits it, without its decoding.
#include "common/request_framing.h"

#include <httplib.h>

#include <catch2/catch.hpp>

using lab::HeaderField;

TEST_CASE("header_fields_of splits a head like the library, values undecoded", "[request_framing]") {
  auto fields = lab::header_fields_of(
      "POST /transfers HTTP/1.1\r\n"
      "Idempotency-Key: \"order%41\"  \r\n"   // spaces after the value are dropped, %41 stays
      "X-Empty:   \r\n"                      // an empty value: the library stores nothing
      "no colon here\r\n"                    // skipped
      "X-Lf-Only: a\n"                       // no CR: the library skips the line
      "Content-Length:\t5\r\n"
      "\r\n"
      "{\"a\":1}");
  CHECK(fields == std::vector<HeaderField>{{"Idempotency-Key", "\"order%41\""}, {"Content-Length", "5"}});
}

TEST_CASE("restore_raw_header_values undoes the library's percent-decoding", "[request_framing]") {
  httplib::Request req;
  req.headers.emplace("Idempotency-Key", "\"orderA\"");   // what the library stored for "order%41"
  req.headers.emplace("REMOTE_ADDR", "127.0.0.1");
  lab::restore_raw_header_values(req, "POST / HTTP/1.1\r\nidempotency-key: \"order%41\"\r\n\r\n");
  CHECK(req.get_header_value("Idempotency-Key") == "\"order%41\"");
  CHECK(req.get_header_value_count("Idempotency-Key") == 1);
  CHECK(req.get_header_value("REMOTE_ADDR") == "127.0.0.1");
}

TEST_CASE("check_framing refuses what the contract does not take", "[request_framing]") {
  auto refusal = [](std::initializer_list<std::pair<const char*, const char*>> headers) {
    httplib::Request req;
    for (auto [name, value] : headers) req.headers.emplace(name, value);
    auto problem = lab::check_framing(req);
    return problem ? std::string(problem->slug()) : std::string("accepted, Content-Length ") +
                                                         req.get_header_value("Content-Length");
  };
  CHECK(refusal({{"Transfer-Encoding", "chunked"}}) == "length-required");
  CHECK(refusal({{"Content-Length", "5"}, {"Content-Length", "6"}}) == "malformed-request");
  CHECK(refusal({{"Content-Length", "%35"}}) == "malformed-request");
  CHECK(refusal({{"Content-Length", "-1"}}) == "malformed-request");
  CHECK(refusal({{"Content-Length", "5"}, {"Content-Encoding", "gzip"}}) == "unsupported-content-encoding");
  CHECK(refusal({{"Content-Length", "5"}, {"Content-Encoding", "Identity"}}) == "accepted, Content-Length 5");
  CHECK(refusal({{"Content-Length", "5"}, {"Content-Length", "5"}}) == "accepted, Content-Length 5");
  CHECK(refusal({}) == "accepted, Content-Length 0");
}
