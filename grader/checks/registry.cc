// registry.cc: all_checks, the order the grader runs them in: the contract, then stage by stage, each stage's
// named checks and then, from stage 2, its conformance check (checks_conformance.cc): random histories judged
// by the model, which has a lesson to hold a server to from stage 2 on (grader/model/lessons.h).
#include "grader/checks/check.h"

namespace grader {

std::vector<Check> all_checks() {
  constexpr int kFirstConformanceStage = 2;
  std::vector<Check> all;
  int stage = 0;
  for (auto named :
       {contract_checks, stage1_checks, stage2_checks, stage3_checks, stage4_checks, stage5_checks, stage6_checks}) {
    auto checks = named();
    all.insert(all.end(), checks.begin(), checks.end());
    if (stage >= kFirstConformanceStage) all.push_back(conformance_check(stage));
    ++stage;
  }
  return all;
}

}  // namespace grader
