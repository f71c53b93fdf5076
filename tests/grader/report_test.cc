// report_test.cc: what a failure shows (grader/report/report.cc), in the terminal, results.json and JUnit.
#include <catch2/catch.hpp>

#include "grader/cli/options.h"
#include "grader/report/junit_xml.h"
#include "grader/report/report.h"
#include "grader/report/results_json.h"

using namespace grader;

namespace {

const Check kCheck{.name = "stage2.simultaneous-16",
                   .stage = 2,
                   .title = "16 simultaneous identical requests move money once",
                   .teaches = {"docs/learn/stage-2-unique-key.md", "Stage 2: a key table with a UNIQUE constraint"},
                   .hint = "let the UNIQUE constraint decide who is first",
                   .needs = Needs::Nothing,
                   .run = nullptr};

CheckOutcome failed_with(int findings) {
  CheckOutcome o;
  o.check = &kCheck;
  o.verdict = Verdict::Fail;
  o.seconds = 0.1;
  for (int n = 1; n <= findings; ++n)
    o.findings.push_back({.anomaly = Anomaly::DoubleApply, .what = "finding number " + std::to_string(n)});
  return o;
}

}  // namespace

TEST_CASE("the terminal shows the first 3 findings and says how many more, and how to see them") {
  auto text = describe_failure(failed_with(5), "grader", false);
  CHECK_THAT(text, Catch::Contains("finding number 3"));
  CHECK_THAT(text, !Catch::Contains("finding number 4"));
  CHECK_THAT(text, Catch::Contains("2 more findings not shown: --all-findings shows them"));
}

TEST_CASE("the terminal shows every finding with --all-findings") {
  auto text = describe_failure(failed_with(5), "grader", true);
  CHECK_THAT(text, Catch::Contains("finding number 5"));
  CHECK_THAT(text, !Catch::Contains("more finding"));
  auto parsed = parse_grader_options({"--all-findings", "--server", "x"});
  REQUIRE(std::holds_alternative<GraderOptions>(parsed));
  CHECK(std::get<GraderOptions>(parsed).all_findings);
}

TEST_CASE("results.json and JUnit carry every finding") {
  std::vector<CheckOutcome> outcomes{failed_with(5)};
  auto json = results_json(outcomes, "grader", 1.0, "seed 1");
  CHECK_THAT(json["tests"][0]["output"].get<std::string>(), Catch::Contains("finding number 5"));
  CHECK_THAT(junit_xml(outcomes, "grader", 1.0), Catch::Contains("finding number 5"));
}

TEST_CASE("a finding's own hint is shown with it, and the check's hint only for findings without one") {
  auto o = failed_with(1);
  o.findings[0].hint = "the 201 body needs \"from_balance_after\"";
  auto text = describe_failure(o, "grader", false);
  CHECK_THAT(text, Catch::Contains("hint:     the 201 body needs \"from_balance_after\""));
  CHECK_THAT(text, !Catch::Contains(kCheck.hint));
  o.findings.push_back({.anomaly = Anomaly::DoubleApply, .what = "a lesson finding"});
  CHECK_THAT(describe_failure(o, "grader", false), Catch::Contains("hint:   " + kCheck.hint));
}

TEST_CASE("a finding about an operation names it and its operationId, and shows no request as sent") {
  auto o = failed_with(0);
  o.findings.push_back({.anomaly = Anomaly::ContractShape,
                        .what = "GET /accounts/{id}: member \"balance\" is missing or not an integer",
                        .operation = "GET /accounts/{id}",
                        .received = "200 application/json"});
  auto text = describe_failure(o, "grader", false);
  CHECK_THAT(text, Catch::Contains("contract: GET /accounts/{id} (openapi.yaml operation getAccount)\n"));
  CHECK_THAT(text, !Catch::Contains("sent:"));
}

TEST_CASE("a finding that shows its request names the request's operationId under it") {
  auto o = failed_with(0);
  o.findings.push_back({.anomaly = Anomaly::DoubleApply,
                        .what = "intent i1 moved money 2 times",
                        .sent = "POST /transfers\n  Content-Type: application/json\n  {}"});
  auto text = describe_failure(o, "grader", false);
  CHECK_THAT(text, Catch::Contains("  sent:     POST /transfers\n"));
  CHECK_THAT(text, Catch::Contains("  contract: openapi.yaml operation createTransfer\n"));
}
