// results_json.cc: see results_json.h.
#include "grader/report/results_json.h"

#include <map>

#include "grader/report/report.h"

namespace grader {

nlohmann::json results_json(const std::vector<CheckOutcome>& outcomes, const std::string& repeat_command,
                            double seconds, const std::string& header) {
  nlohmann::json tests = nlohmann::json::array();
  int score = 0, max_score = 0;
  std::map<int, int> number_in_stage;
  for (const auto& o : outcomes) {
    const bool counts = o.verdict != Verdict::Skip;
    const int points = o.verdict == Verdict::Pass ? 1 : 0;
    score += points;
    max_score += counts ? 1 : 0;
    // A pass keeps its note: what the grader could not see (grader/checks/check_run.h:CheckRun::caveat).
    std::string output = o.verdict == Verdict::Pass   ? (o.note.empty() ? "passed" : "passed\n" + o.note)
                         : o.verdict == Verdict::Skip ? o.note
                                                      : describe_failure(o, repeat_command, true);
    tests.push_back(
        {{"name", o.check->name + ": " + o.check->title},
         {"number", std::to_string(o.check->stage) + "." + std::to_string(++number_in_stage[o.check->stage])},
         {"score", points},
         {"max_score", counts ? 1 : 0},
         {"status", o.verdict == Verdict::Pass ? "passed" : "failed"},
         {"output", output},
         {"visibility", "visible"}});
  }
  return {{"score", score},   {"max_score", max_score},  {"execution_time", seconds},
          {"output", header}, {"visibility", "visible"}, {"stdout_visibility", "visible"},
          {"tests", tests}};
}

}  // namespace grader
