// repeat_timing_test.cc: how a repeat sent during the first request's sleep came out (grader/checks/
// check_helpers.h, RepeatTiming), from the two answers' times alone: the rule that keeps the in-flight checks'
// verdicts independent of the machine's load.
#include <catch2/catch.hpp>

#include "grader/checks/check_helpers.h"

using namespace grader;

namespace {

constexpr std::int64_t kMs = 1'000'000;  // nanoseconds

Exchange answered(int status, std::int64_t sent_ms, std::int64_t done_ms, std::string body = "{}") {
  Exchange x;
  x.response = HttpResponse{status, {}, std::move(body)};
  x.sent_ns = sent_ms * kMs;
  x.done_ns = done_ms * kMs;
  return x;
}

const std::string kInProgress = R"({"type":"https://lab.example/problems/request-in-progress"})";

}  // namespace

TEST_CASE("a repeat answered while the first still ran is in flight, whatever its status") {
  const Exchange first = answered(201, 0, 500);
  CHECK(timing_of(answered(409, 100, 120, kInProgress), first) == RepeatTiming::InFlight);
  CHECK(timing_of(answered(201, 100, 120), first) == RepeatTiming::InFlight);  // a double execution: judged
}

TEST_CASE("a 409 request-in-progress is judged as in flight even when it was answered last") {
  CHECK(timing_of(answered(409, 100, 900, kInProgress), answered(201, 0, 500)) == RepeatTiming::InFlight);
}

TEST_CASE("a repeat sent only after the first was answered came late from the grader's side") {
  CHECK(timing_of(answered(201, 600, 610), answered(201, 0, 500)) == RepeatTiming::SentLate);
}

TEST_CASE("a repeat sent in time but answered after the first came late from the server's side") {
  CHECK(timing_of(answered(201, 100, 700), answered(201, 0, 500)) == RepeatTiming::AnsweredLate);
}

TEST_CASE("answers within the slack of each other count as the first answered first") {
  // the reader thread of the first may be scheduled a little after the repeat's
  CHECK(timing_of(answered(201, 100, 480), answered(201, 0, 500)) == RepeatTiming::AnsweredLate);
  CHECK(timing_of(answered(201, 100, 400), answered(201, 0, 500)) == RepeatTiming::InFlight);
}

TEST_CASE("with no answer to either request there is nothing to call late") {
  Exchange lost;
  lost.sent_ns = 100 * kMs;
  lost.done_ns = 900 * kMs;
  CHECK(timing_of(lost, answered(201, 0, 500)) == RepeatTiming::InFlight);
  CHECK(timing_of(answered(201, 100, 900), lost) == RepeatTiming::InFlight);
}

TEST_CASE("a grown delay doubles the base and stops at the Lab-Delay-Ms limit") {
  CHECK(grown_delay(500, 1) == 500);
  CHECK(grown_delay(500, 4) == 2000);
  CHECK(grown_delay(4000, 4) == kLabDelayLimitMs);
}
