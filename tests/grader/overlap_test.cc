// overlap_test.cc: which requests were being served beside another (grader/record/overlap.cc), on made-up
// histories, and a finding's own fixed_by before the check's stage (grader/record/anomaly.cc).
#include "grader/record/overlap.h"

#include <catch2/catch.hpp>

#include "grader/record/anomaly.h"

using namespace grader;

namespace {

Event at(EventType type, std::int64_t op, double t_ms) {
  Event e;
  e.type = type;
  e.op = op;
  e.t_ms = t_ms;
  return e;
}

}  // namespace

TEST_CASE("overlap: a request answered while another ran counts it, one answered before the other began does not") {
  const std::vector<Event> events = {at(EventType::Invoke, 1, 0),  at(EventType::Invoke, 2, 10),
                                     at(EventType::Fail, 2, 20),   at(EventType::Ok, 1, 500),
                                     at(EventType::Invoke, 3, 600), at(EventType::Fail, 3, 610)};
  CHECK(others_served_beside(events, 2) == 1);  // op 1 ran from 0 to 500
  CHECK(others_served_beside(events, 1) == 1);
  CHECK(others_served_beside(events, 3) == 0);  // alone: a 503 here is no overlap
  CHECK(others_served_beside(events, 9) == 0);  // an op the events do not hold
  CHECK(being_served(events) == 0);
}

TEST_CASE("overlap: a request the client gave up on runs until the observer saw it end, or for ever") {
  const std::vector<Event> events = {at(EventType::Invoke, 1, 0), at(EventType::Unknown, 1, 5),
                                     at(EventType::Invoke, 2, 10), at(EventType::Fail, 2, 20),
                                     at(EventType::Invoke, 3, 30)};
  CHECK(others_served_beside(events, 2) == 1);  // op 1, never seen to end; op 3 began after op 2 was answered
  CHECK(being_served(events) == 2);             // op 1 (no end seen) and op 3 (no answer yet)
  std::vector<Event> ended = events;
  ended.push_back(at(EventType::Ended, 1, 8));
  CHECK(others_served_beside(ended, 2) == 0);  // op 1 ended at 8 ms, before op 2 began; op 3 began after it
  CHECK(being_served(ended) == 1);
}

TEST_CASE("anomaly: a finding's own fixed_by comes before its hint and its check's stage") {
  Finding lost{.anomaly = Anomaly::LostWrite, .what = "told success, nothing moved"};
  CHECK(fixing_stage(lost, 4) == 4);
  lost.fixed_by = 2;
  CHECK(fixing_stage(lost, 4) == 2);
}
