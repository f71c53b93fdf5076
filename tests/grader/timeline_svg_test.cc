// timeline_svg_test.cc: how a history is drawn (grader/report/timeline_svg.cc), on made-up histories. The
// picture's geometry is read back through its height (6 above the lanes when there are no faults, 26 per
// lane, 42 for the footer) and the attributes the playground and the browser tests rely on.
#include <catch2/catch.hpp>

#include "grader/report/timeline_svg.h"
#include "tests/grader/occurrences.h"

using namespace grader;
using grader::testing::occurrences;

namespace {

// A made-up history: each call appends one event, as History would record it.
struct MadeUpHistory {
  std::vector<Event> events;

  void invoke(std::int64_t op, double t, std::optional<std::string> key, const std::string& intent = "i1") {
    Event e;
    e.type = EventType::Invoke;
    e.op = op;
    e.t_ms = t;
    e.check = "stage2.made-up";
    e.intent = intent;
    e.key = std::move(key);
    e.request = HttpRequest{.method = "POST", .target = "/transfers", .headers = {}, .body = "{}"};
    events.push_back(e);
  }
  // An attempt sent at t and answered 10 ms later.
  void answered(std::int64_t op, double t, const std::string& key, int status, bool replayed = false) {
    invoke(op, t, key);
    answer(op, t + 10, status, replayed);
  }
  void answer(std::int64_t op, double t, int status, bool replayed = false) {
    Event e;
    e.type = status / 100 == 2 ? EventType::Ok : EventType::Fail;
    e.op = op;
    e.t_ms = t;
    e.check = "stage2.made-up";
    e.response = HttpResponse{.status = status, .headers = {}, .body = "{}"};
    if (replayed) e.response->headers.push_back({"Idempotent-Replayed", "true"});
    events.push_back(e);
  }
  void no_answer(std::int64_t op, double t) {
    Event e;
    e.type = EventType::Unknown;
    e.op = op;
    e.t_ms = t;
    e.error = "response lost on purpose";
    events.push_back(e);
  }
  void ended(std::int64_t op, double t, int status) {
    Event e;
    e.type = EventType::Ended;
    e.op = op;
    e.t_ms = t;
    e.response = HttpResponse{.status = status, .headers = {}, .body = "{}"};
    events.push_back(e);
  }
  void fault(double t, const std::string& what, const std::string& detail) {
    Event e;
    e.type = EventType::Fault;
    e.t_ms = t;
    e.fault = what;
    e.detail = detail;
    events.push_back(e);
  }
};

std::string height_of(std::size_t lanes) { return "height=\"" + std::to_string(6 + 26 * lanes + 42) + ".0\""; }

}  // namespace

TEST_CASE("a retry sent after its first attempt ended reuses the first attempt's lane") {
  MadeUpHistory s;
  s.answered(1, 0, "\"k1\"", 201);
  s.answered(2, 20, "\"k1\"", 201, true);
  const std::string svg = timeline_svg(s.events, {});
  CHECK_THAT(svg, Catch::Contains(height_of(1)));
  CHECK(occurrences(svg, "class=\"attempt\"") == 2);
}

TEST_CASE("simultaneous copies of one key stand in lanes of their own, and each key has its band") {
  MadeUpHistory s;
  s.invoke(1, 0, "\"k1\"");
  s.invoke(2, 0.2, "\"k1\"");
  s.invoke(3, 0.4, std::nullopt);
  s.answer(1, 10, 201);
  s.answer(2, 11, 409);
  s.answer(3, 12, 400);
  const std::string svg = timeline_svg(s.events, {});
  CHECK_THAT(svg, Catch::Contains(height_of(3)));
  CHECK(occurrences(svg, "class=\"key-band\"") == 2);
  CHECK_THAT(svg, Catch::Contains(">no key</text>"));
}

TEST_CASE("each attempt says how it ended in its attributes, its text and its shape, not only its colour") {
  MadeUpHistory s;
  s.answered(1, 0, "\"k1\"", 201);
  s.answered(2, 20, "\"k1\"", 201, true);
  s.answered(3, 40, "\"k1\"", 409);
  const std::string svg = timeline_svg(s.events, {});
  CHECK_THAT(svg,
             Catch::Contains("data-op=\"1\" data-key=\"&quot;k1&quot;\" data-status=\"201\" data-outcome=\"ok\" "
                             "tabindex=\"0\" role=\"button\" aria-label=\"op 1: POST /transfers key &quot;k1&quot; "
                             "-&gt; 201 Created\""));
  CHECK_THAT(svg,
             Catch::Contains("aria-label=\"op 2: POST /transfers key &quot;k1&quot; -&gt; 201 Created, replayed\""));
  CHECK_THAT(svg, Catch::Contains(">201 replay</text>"));
  CHECK_THAT(svg, Catch::Contains("data-status=\"409\" data-outcome=\"fail\""));
  CHECK_THAT(svg, Catch::Contains("class=\"bar bar-fail\""));  // hatched
  CHECK_THAT(svg, Catch::Contains("<path class=\"cap\""));     // and the "x" end cap
}

TEST_CASE("an attempt without an answer runs open-ended to the right edge, and the server's end is a tick on it") {
  MadeUpHistory s;
  s.invoke(1, 0, "\"k1\"");
  s.no_answer(1, 1);
  s.answered(2, 20, "\"k1\"", 201);  // a retry: the first attempt's lane is never free again
  s.ended(1, 300, 201);
  const std::string svg = timeline_svg(s.events, {});
  CHECK_THAT(svg, Catch::Contains("data-status=\"unknown\" data-outcome=\"unknown\""));
  CHECK_THAT(svg, Catch::Contains("class=\"bar bar-unknown\""));
  CHECK_THAT(svg, Catch::Contains("<text class=\"open-end\" x=\"871.0\""));  // the "?" after the right edge
  CHECK_THAT(svg, Catch::Contains("<g class=\"ended\"><title>server ended it: 201 Created</title>"));
  CHECK_THAT(svg, Catch::Contains("the server ended it later with 201 Created"));
  CHECK_THAT(svg, Catch::Contains(height_of(2)));
}

TEST_CASE("a fault is a line across every lane, labelled") {
  MadeUpHistory s;
  s.invoke(1, 0, "\"k1\"");
  s.no_answer(1, 5);
  s.fault(6, "lab-crash", "before-money");
  s.fault(80, "clock", "advance 21000 ms: let the lease run out");
  const std::string svg = timeline_svg(s.events, {});
  CHECK_THAT(svg, Catch::Contains("<g class=\"fault\" data-fault=\"lab-crash\"><title>lab-crash: before-money"));
  CHECK_THAT(svg, Catch::Contains(">crash</text>"));
  CHECK_THAT(svg, Catch::Contains(">clock +21 s</text>"));
}

TEST_CASE("a marked attempt has a marker, its anomaly and a title, and the first marked in time is first-violation") {
  MadeUpHistory s;
  s.answered(1, 0, "\"k1\"", 201);
  s.answered(2, 20, "\"k1\"", 201);
  s.answered(3, 40, "\"k1\"", 201);
  const std::vector<TimelineMark> marks = {{3, "double-apply", "A1: intent i1 moved money 3 times", 2},
                                           {2, "double-apply", "A1: intent i1 moved money 3 times", 2}};
  const std::string svg = timeline_svg(s.events, marks);
  CHECK(occurrences(svg, "class=\"attempt anomaly\"") == 2);
  CHECK(occurrences(svg, "data-anomaly=\"double-apply\"") == 2);
  CHECK(occurrences(svg, "<g class=\"marker\">") == 2);
  CHECK_THAT(svg, Catch::Contains("<g class=\"attempt anomaly\" id=\"first-violation\" data-op=\"2\""));
  CHECK(occurrences(svg, "first-violation") == 1);
  CHECK_THAT(svg, Catch::Contains("! double-apply: A1: intent i1 moved money 3 times (stage 2 fixes it)</title>"));
  CHECK_THAT(timeline_svg(s.events, marks, "s1-x-"), Catch::Contains("id=\"s1-x-first-violation\" data-op=\"2\""));
}

TEST_CASE("a key with < & and \" is escaped in every attribute and text") {
  MadeUpHistory s;
  s.answered(1, 0, "\"<&\"x\"", 201);
  const std::string svg = timeline_svg(s.events, {{1, "double-apply", "key \"<&\"x\" twice", 2}});
  CHECK_THAT(svg, !Catch::Contains("<&"));
  CHECK_THAT(svg, Catch::Contains("data-key=\"&quot;&lt;&amp;&quot;x&quot;\""));
  CHECK(occurrences(svg, "<") == occurrences(svg, ">"));  // every < and > left is a tag's
}

TEST_CASE("the same history gives the same picture") {
  MadeUpHistory s;
  s.invoke(1, 0, "\"k1\"");
  s.no_answer(1, 1);
  s.fault(2, "restart", "same database");
  s.invoke(2, 3, "\"k1\"");
  s.answer(2, 9, 201);
  CHECK(timeline_svg(s.events, {{2, "lost-write", "x", 4}}) == timeline_svg(s.events, {{2, "lost-write", "x", 4}}));
}

TEST_CASE("a finding marks its ops, or else every attempt of its intent, or nothing") {
  MadeUpHistory s;
  s.answered(1, 0, "\"k1\"", 201);  // intent i1
  s.answered(2, 20, "\"k1\"", 201);
  s.invoke(3, 40, "\"k2\"", "i2");
  s.answer(3, 50, 201);
  const std::vector<Finding> findings = {
      {.anomaly = Anomaly::WrongStatus, .what = "one attempt", .ops = {3}},
      {.anomaly = Anomaly::DoubleApply, .what = "an intent", .intent = "i1"},
      {.anomaly = Anomaly::BalanceDrift, .what = "a balance"},
  };
  const auto marks = marks_for(findings, s.events, 2);
  REQUIRE(marks.size() == 3);
  CHECK(marks[0].op == 3);
  CHECK(marks[0].anomaly == "wrong-status");
  CHECK(marks[0].fixed_by == 2);  // the check's stage: its lesson is where the fix is
  CHECK(marks[1].op == 1);
  CHECK(marks[2].op == 2);
  CHECK(marks[2].text == "an intent");
}
