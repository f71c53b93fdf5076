// history_test.cc: what the grader shows of a bearer token (grader/record/history.h:redacted_header_value), in the
// history it writes and in the request a failure report shows. One rule, so the two cannot drift apart. And
// the opt-in bound of a history (the playground's session keeps its newest events only).
#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>

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

namespace {

// One op of key `key` in `history`: its invoke, and its answer when `answered`.
std::int64_t attempt(History& history, const std::string& key, bool answered = true) {
  HttpRequest request;
  request.method = "POST";
  request.target = "/transfers";
  const std::int64_t op = history.invoke("free/stage1_naive", key, key, request);
  if (answered) history.complete(op, Exchange{.response = HttpResponse{.status = 201, .headers = {}, .body = "{}"},
                                              .maybe_reached = true, .error = "", .sent_ns = 0, .done_ns = monotonic_ns()});
  return op;
}

}  // namespace

TEST_CASE("a history keeps every event unless it is given a bound (the grader's)") {
  History history;
  for (int i = 0; i < 100; ++i) attempt(history, "k" + std::to_string(i));
  CHECK(history.of_check("free/stage1_naive").size() == 200);
  CHECK(history.dropped().events == 0);
  CHECK(history.dropped().keys.empty());
}

TEST_CASE("a bounded history keeps its newest events, and counts and names what it dropped") {
  History history(4);
  for (int i = 1; i <= 5; ++i) attempt(history, "k" + std::to_string(i));  // 10 events
  const auto events = history.of_check("free/stage1_naive");
  REQUIRE(events.size() == 4);
  CHECK(events.front().op == 4);
  CHECK(events.front().type == EventType::Invoke);
  CHECK(events.back().op == 5);
  CHECK(events.back().type == EventType::Ok);
  const History::Dropped dropped = history.dropped();
  CHECK(dropped.events == 6);
  CHECK(dropped.keys == std::set<std::string>{"k1", "k2", "k3"});
  CHECK_FALSE(dropped.every_key);
}

TEST_CASE("an answer whose request was dropped is dropped too, and later ops still pair up") {
  History history(2);
  const auto first = attempt(history, "slow", /*answered=*/false);
  attempt(history, "k2");  // pushes the first op's invoke out
  history.complete(first, Exchange{.response = std::nullopt, .maybe_reached = true, .error = "timed out",
                                   .sent_ns = 0, .done_ns = monotonic_ns()});
  history.ended(first, Exchange{});
  const auto events = history.of_check("free/stage1_naive");
  REQUIRE(events.size() == 2);
  CHECK(events[0].op == 2);
  CHECK(events[1].op == 2);
  CHECK(history.dropped().events == 3);  // the invoke, its completion, its end
  CHECK(attempt(history, "k3") == 3);
  CHECK_THROWS_AS(history.complete(9, Exchange{}), std::out_of_range);  // never invoked
}

TEST_CASE("past as many dropped keys as events kept, a bounded history says any key may have lost events") {
  History history(2);
  for (int i = 0; i < 10; ++i) attempt(history, "k" + std::to_string(i));
  const History::Dropped dropped = history.dropped();
  CHECK(dropped.every_key);
  CHECK(dropped.keys.empty());  // its memory is bounded too
  CHECK(dropped.events == 18);
}
