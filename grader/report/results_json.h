// results_json.h: Gradescope's results.json (the autograder output format). docs/teach/grader.md "The grader".
//
//   {"score": 23, "max_score": 31, "execution_time": 12.4, "output": "...", "visibility": "visible",
//    "tests": [{"name": "stage2.lost-response-retry: a retry after a lost response moves money once",
//               "number": "2.3", "score": 0, "max_score": 1, "status": "failed",
//               "output": "<the failure text>", "visibility": "visible"}]}
//
// One point per check; a skipped check is listed with max_score 0 (it neither counts nor costs).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grader/checks/runner.h"

namespace grader {

nlohmann::json results_json(const std::vector<CheckOutcome>& outcomes, const std::string& repeat_command,
                            double seconds, const std::string& header);

}  // namespace grader
