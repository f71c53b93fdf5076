// history_test.cc: what the grader shows of a bearer token (grader/record/history.h:redacted_header_value), in the
// history it writes and in the request a failure report shows. One rule, so the two cannot drift apart.
#include <catch2/catch.hpp>

#include "grader/checks/check_run.h"
#include "grader/record/history.h"

using namespace grader;

namespace {

const std::string kToken = "tok_0123456789abcdefghij";  // 24 characters: longer than what is kept

}  // namespace

TEST_CASE("a bearer token is cut after its first 12 characters, then \"...\"") {
  CHECK(redacted_header_value("Authorization", "Bearer " + kToken) == "Bearer tok_01234567...");
  CHECK(redacted_header_value("authorization", "Bearer " + kToken) == "Bearer tok_01234567...");  // any case
}

TEST_CASE("a short Authorization value, and every other header, are shown as they are") {
  CHECK(redacted_header_value("Authorization", "Bearer tok_01234567") == "Bearer tok_01234567");  // exactly 12
  CHECK(redacted_header_value("Authorization", "") == "");
  CHECK(redacted_header_value("Idempotency-Key", "\"" + kToken + "\"") == "\"" + kToken + "\"");
  CHECK(redacted_header_value("X-Authorization", "Bearer " + kToken) == "Bearer " + kToken);
}

TEST_CASE("the history and a failure report show a token cut the same way") {
  Attempt attempt;
  attempt.path = "/transfers";
  attempt.token = kToken;
  attempt.body = "{}";

  const std::string shown = show_request(attempt);
  CHECK_THAT(shown, Catch::Contains("Authorization: Bearer tok_01234567...\n"));
  CHECK_THAT(shown, !Catch::Contains(kToken));

  History history;
  history.invoke("stage1.check", "i1", std::nullopt, attempt.to_request());
  const auto events = history.of_check("stage1.check");
  REQUIRE(events.size() == 1);
  const std::string line = History::to_json(events[0]).dump();
  CHECK_THAT(line, Catch::Contains(R"(["Authorization","Bearer tok_01234567..."])"));
  CHECK_THAT(line, !Catch::Contains(kToken));
}
