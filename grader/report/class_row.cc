// class_row.cc: see class_row.h.
#include "grader/report/class_row.h"

#include "grader/record/anomaly.h"

namespace grader {
namespace {

// The anomaly a failure's text opens with ("double-apply: intent i2 ..."), or "" when it opens otherwise
// (a note, the balances, a hint: a failure without findings).
std::string anomaly_of(const std::string& output) {
  const std::string first = output.substr(0, output.find(':'));
  for (const auto& a : all_anomalies())
    if (first == a.name) return first;
  return "";
}

StageResult result_from_word(const std::string& w) {
  return w == "pass" ? StageResult::Pass : w == "fail" ? StageResult::Fail : StageResult::NotRun;
}

}  // namespace

const char* word(StageResult result) {
  return result == StageResult::Pass ? "pass" : result == StageResult::Fail ? "fail" : "not-run";
}

bool read_results(const std::string& text, int stage, ClassRow& row) {
  const auto results = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!results.is_object() || !results.contains("tests") || !results["tests"].is_array()) {
    row.reason = "its results.json is not Gradescope's results.json";
    return false;
  }
  if (results["tests"].empty()) {
    row.reason = "its results.json lists no check";
    return false;
  }
  row.stages.assign(stage + 1, StageResult::NotRun);
  bool failed = false;
  for (const auto& test : results["tests"]) {
    const std::string number = test.value("number", ""), name = test.value("name", "");
    const int max_score = test.value("max_score", 0);
    const int s = number.empty() ? -1 : std::atoi(number.c_str());  // "3.2" -> 3
    if (s < 0 || s > stage || max_score == 0) continue;               // skipped: neither counts nor costs
    const bool passed = test.value("status", "") == "passed";
    if (!passed && !failed) {
      failed = true;
      row.first_failure = name.substr(0, name.find(':'));
      row.anomaly = anomaly_of(test.value("output", ""));
    }
    if (!passed) row.stages[s] = StageResult::Fail;
    else if (row.stages[s] == StageResult::NotRun) row.stages[s] = StageResult::Pass;
  }
  row.verdict = failed ? "fail" : "pass";
  return true;
}

nlohmann::json to_json(const ClassRow& row) {
  nlohmann::json stages = nlohmann::json::array();
  for (auto s : row.stages) stages.push_back(word(s));
  return {{"name", row.name},       {"command", row.command},         {"verdict", row.verdict},
          {"stages", stages},       {"first_failure", row.first_failure}, {"anomaly", row.anomaly},
          {"reason", row.reason},   {"seconds", row.seconds}};
}

ClassRow row_from_json(const nlohmann::json& saved) {
  ClassRow row{.name = saved.at("name").get<std::string>(),
               .command = saved.at("command").get<std::string>(),
               .verdict = saved.at("verdict").get<std::string>(),
               .first_failure = saved.at("first_failure").get<std::string>(),
               .anomaly = saved.at("anomaly").get<std::string>(),
               .reason = saved.at("reason").get<std::string>(),
               .seconds = saved.at("seconds").get<double>()};
  for (const auto& s : saved.at("stages")) row.stages.push_back(result_from_word(s.get<std::string>()));
  return row;
}

}  // namespace grader
