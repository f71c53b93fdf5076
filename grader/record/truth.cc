// truth.cc: see truth.h.
#include "grader/record/truth.h"

#include <algorithm>

namespace grader {
namespace {

bool has(const StageServer& server, const std::string& trait) {
  return std::find(server.does.begin(), server.does.end(), trait) != server.does.end();
}

// The traits stage k's lesson adds: those of the reference stage k that stage k-1 lacks (the table's rows, so
// a stage's lesson is written once, as what its server does).
std::vector<std::string> lesson_of(int stage) {
  const StageServer* now = find_stage_server(std::to_string(stage));
  const StageServer* before = stage > 1 ? find_stage_server(std::to_string(stage - 1)) : nullptr;
  std::vector<std::string> lesson;
  if (!now) return lesson;
  for (const auto& trait : now->does)
    if (!before || !has(*before, trait)) lesson.push_back(trait);
  return lesson;
}

// The table's rows keep the contract without listing it (the matrix: each passes stage 0); a description made
// elsewhere (lacking()) keeps it when it lists it.
bool keeps_contract(const StageServer& server) {
  return has(server, kContractTrait) || find_stage_server(server.binary) != nullptr;
}

}  // namespace

StageServer lacking(const StageServer& server, const std::vector<std::string>& lacks, const std::string& name) {
  StageServer described = server;
  described.binary = described.label = described.name = name;
  described.must_fail.reset();
  const auto lacked = [&](const std::string& t) { return std::find(lacks.begin(), lacks.end(), t) != lacks.end(); };
  std::erase_if(described.does, lacked);
  if (!lacked(kContractTrait) && !has(described, kContractTrait)) described.does.push_back(kContractTrait);
  return described;
}

int lesson_teaching(const std::string& trait) {
  for (int stage = 1; find_stage_server(std::to_string(stage)); ++stage) {  // every reference stage, in order
    const std::vector<std::string> lesson = lesson_of(stage);
    if (std::find(lesson.begin(), lesson.end(), trait) != lesson.end()) return stage;
  }
  return 0;
}

std::vector<std::string> untrue(const StageServer& server, const Finding& finding, int check_stage) {
  std::vector<std::string> broken;

  // T1: the credited lesson teaches a trait the server lacks; the contract, which every server of the table
  // keeps (the matrix: each passes stage 0), is the fix only of a server that lacks it (kContractTrait).
  const int credited = fixing_stage(finding, check_stage);
  const std::vector<std::string> lesson = lesson_of(credited);
  const bool lacks_some = std::any_of(lesson.begin(), lesson.end(), [&](const auto& t) { return !has(server, t); });
  if (credited <= 0) {
    if (keeps_contract(server)) broken.push_back("T1: credits the contract, which " + server.name + " keeps");
  } else if (!lacks_some)
    broken.push_back("T1: credits stage " + std::to_string(credited) + ", but " + server.name +
                     " has every trait its lesson teaches");

  // T2: the claimed cause is the lack of a trait the server truly lacks.
  if (finding.cause != Cause::None) {
    const std::string trait(lacked_trait(finding.cause));
    if (has(server, trait))
      broken.push_back("T2: claims " + std::string(name(finding.cause)) + ", but " + server.name +
                       " has the trait \"" + trait + "\"");
  }
  return broken;
}

}  // namespace grader
