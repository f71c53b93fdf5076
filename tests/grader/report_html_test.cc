// report_html_test.cc: the HTML report's structure (grader/report/report_html.cc) on made-up outcomes, read without
// a parser: the ids and classes the links and the browser tests rely on, a section for every failed check,
// escaping, and nothing fetched from elsewhere.
#include <catch2/catch.hpp>

#include "grader/report/report_html.h"
#include "tests/grader/occurrences.h"

using namespace grader;
using grader::testing::occurrences;

namespace {

const Check kRetry{.name = "stage2.lost-response-retry",
                   .stage = 2,
                   .title = "a retry after a lost response moves money once",
                   .teaches = {"docs/learn/stage-2-unique-key.md", "Stage 2: a key table with a UNIQUE constraint"},
                   .hint = "store the key so a repeat finds it",
                   .needs = Needs::Nothing,
                   .run = nullptr};
const Check kShape{.name = "stage0.transfer-shape",
                   .stage = 0,
                   .title = "<script>alert(1)</script> & \"quotes\"",
                   .teaches = {"docs/reference/http-contract.md", "The HTTP contract"},
                   .hint = "the 201 body is the ledger entry",
                   .needs = Needs::Nothing,
                   .run = nullptr};

// A lost response and its retry: both moved money.
std::vector<Event> double_apply_history() {
  std::vector<Event> events;
  auto add = [&](EventType type, std::int64_t op, double t, std::optional<int> status) {
    Event e;
    e.type = type;
    e.op = op;
    e.t_ms = t;
    e.check = kRetry.name;
    e.intent = "i1";
    e.key = "\"k<1>\"";
    if (type == EventType::Invoke)
      e.request = HttpRequest{.method = "POST",
                              .target = "/transfers",
                              .headers = {{"Authorization", "Bearer tok_0123456789abcdefghij"}},
                              .body = "{\"amount\":700}"};
    if (status) e.response = HttpResponse{.status = *status, .headers = {}, .body = "{\"id\":7}"};
    if (type == EventType::Unknown) e.error = "response lost on purpose";
    events.push_back(e);
  };
  add(EventType::Invoke, 1, 0, std::nullopt);
  add(EventType::Unknown, 1, 1, std::nullopt);
  add(EventType::Invoke, 2, 20, std::nullopt);
  add(EventType::Ok, 2, 30, 201);
  add(EventType::Ended, 1, 300, 201);
  return events;
}

CheckOutcome outcome(const Check& check, Verdict verdict, std::vector<Finding> findings = {}) {
  CheckOutcome o;
  o.check = &check;
  o.verdict = verdict;
  o.findings = std::move(findings);
  return o;
}

HtmlReport two_servers() {
  GradedServer s1{.label = "s1", .binary = "stage1_naive"};
  s1.outcomes = {outcome(kShape, Verdict::Pass),
                 outcome(kRetry, Verdict::Fail,
                         {{.anomaly = Anomaly::DoubleApply,
                           .what = "A1: intent i1 (key k<1>) moved money 2 times (ledger ids 7, 9)",
                           .intent = "i1"}})};
  s1.histories[kRetry.name] = double_apply_history();
  GradedServer w{.label = "w-\"q\"", .binary = "wrong_<b>"};
  w.outcomes = {outcome(kShape, Verdict::Fail, {{.anomaly = Anomaly::ContractShape, .what = "no \"id\" member"}}),
                outcome(kRetry, Verdict::Skip)};
  GradedServer missing{.label = "s6", .binary = "stage6_scope_ttl", .built = false};
  return HtmlReport{.title = "grader matrix",
                    .about = {"seed 1"},
                    .checks = {&kShape, &kRetry},
                    .servers = {s1, w, missing},
                    .staircase = std::vector<std::string>{}};
}

}  // namespace

TEST_CASE("the matrix is a table with a cell per check and server, each verdict in words") {
  const std::string page = report_html(two_servers());
  CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(page, Catch::Contains("<table id=\"matrix\">"));
  CHECK(occurrences(page, "<td data-verdict=") == 2 * 3);
  CHECK_THAT(page, Catch::Contains("<td data-verdict=\"pass\">\u2713 PASS</td>"));
  CHECK_THAT(page,
             Catch::Contains("<td data-verdict=\"fail\"><a href=\"#s1--stage2.lost-response-retry\">\u2717 FAIL</a>"));
  CHECK_THAT(page, Catch::Contains("<td data-verdict=\"skip\">\u2013 SKIP</td>"));
  CHECK_THAT(page, Catch::Contains("<td data-verdict=\"skip\">not built</td>"));
  CHECK_THAT(page, Catch::Contains("<th scope=\"col\">"));
  CHECK_THAT(page, Catch::Contains("The staircase holds"));
}

TEST_CASE("every failed check has its section, with a timeline and a link to its first violation") {
  HtmlReport report = two_servers();
  report.book = "file:///home/me/lab/build/book/";
  const std::string page = report_html(report);
  CHECK(occurrences(page, "<section class=\"failed-check\"") == 2);
  CHECK_THAT(page, Catch::Contains("<section class=\"failed-check\" id=\"s1--stage2.lost-response-retry\" "
                                   "data-check=\"stage2.lost-response-retry\" data-stage=\"s1\">"));
  CHECK_THAT(page, Catch::Contains("<a class=\"first-violation\" "
                                   "href=\"#s1--stage2.lost-response-retry-first-violation\">"));
  CHECK_THAT(page, Catch::Contains("id=\"s1--stage2.lost-response-retry-first-violation\""));
  CHECK(occurrences(page, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\"") == 2);
  CHECK(occurrences(page, "class=\"attempt anomaly\"") == 2);  // the intent's two attempts
  // The section says what fixes it, where to read, and shows the marked attempts as sent and answered.
  CHECK_THAT(page, Catch::Contains("stage 2 fixes it"));
  CHECK_THAT(page, Catch::Contains("<a class=\"teaches\" href=\"file:///home/me/lab/build/book/learn/stage-2-unique-key.html#stage-2-a-key-table-with-a-unique-constraint\">"
                                   "docs/learn/stage-2-unique-key.md &quot;Stage 2: a key table with a UNIQUE constraint&quot;</a>"));
  CHECK_THAT(page, Catch::Contains("Authorization: Bearer tok_01234567...\n"));  // redacted, as in the history
  CHECK_THAT(page, !Catch::Contains("tok_0123456789abcdefghij"));
  CHECK_THAT(page, Catch::Contains("the server ended it later: 201 Created"));
}

TEST_CASE("a failed check no request shows links its first-violation to its findings") {
  const std::string page = report_html(two_servers());
  CHECK_THAT(page, Catch::Contains("data-check=\"stage0.transfer-shape\" data-stage=\"w-&quot;q&quot;\""));
  CHECK_THAT(page, Catch::Contains("<a class=\"first-violation\" href=\"#w--q---stage0.transfer-shape-findings\">"));
  CHECK_THAT(page, Catch::Contains("<ol class=\"findings\" id=\"w--q---stage0.transfer-shape-findings\">"));
}

TEST_CASE("every text from a check, a server or a key is escaped, and nothing is fetched from elsewhere") {
  const std::string page = report_html(two_servers());
  CHECK_THAT(page, !Catch::Contains("<script"));
  CHECK_THAT(page, Catch::Contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
  CHECK_THAT(page, !Catch::Contains("wrong_<b>"));
  CHECK_THAT(page, !Catch::Contains("k<1>"));
  CHECK_THAT(page, !Catch::Contains("src="));
  CHECK(occurrences(page, "href=\"") == occurrences(page, "href=\"#"));
}

TEST_CASE("the day is a damage table and a chart with its numbers written out") {
  DayRow stage1{.server = "stage1_naive", .sends = 1200, .seconds = 2};
  stage1.damage.counts[static_cast<std::size_t>(Damage::Duplicate)] = 37;
  DayRow stage6{.server = "stage6_scope_ttl", .sends = 1200, .seconds = 3};
  DayRow broken{.server = "wrong_<x>", .error = "did not start: <oops>"};
  HtmlReport report{.title = "grader day replay",
                    .day = DayReport{"logs/day.jsonl", 1000, 1200, {stage1, stage6, broken}}};
  const std::string page = report_html(report);
  CHECK_THAT(page, Catch::Contains("<table id=\"day-damage\">"));
  CHECK_THAT(page, Catch::Contains("<td data-damage=\"dup\">37</td>"));
  CHECK_THAT(page, Catch::Contains("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"day-chart\""));
  CHECK_THAT(page, Catch::Contains("<g class=\"panel\" data-damage=\"dup\">"));
  CHECK_THAT(page, Catch::Contains(">37</text>"));
  CHECK_THAT(page, Catch::Contains("replay failed: did not start: &lt;oops&gt;"));
  CHECK_THAT(page, !Catch::Contains("<table id=\"matrix\">"));  // a day alone has no matrix
}
