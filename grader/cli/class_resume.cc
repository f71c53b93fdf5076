// class_resume.cc: see class_resume.h.
#include "grader/cli/class_resume.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "grader/report/class_summary.h"

namespace grader {

std::optional<ClassRow> graded_before(const std::string& learner_dir, const GradedWith& with, const std::string& command) {
  std::ifstream in(std::filesystem::path(learner_dir) / kDoneFile, std::ios::binary);
  if (!in) return std::nullopt;
  const auto done = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  try {
    if (done.at("stage").get<int>() != with.stage || done.at("seed").get<std::uint64_t>() != with.seed ||
        done.at("histories").get<int>() != with.histories || done.at("command").get<std::string>() != command)
      return std::nullopt;
    ClassRow row = row_from_json(done.at("row"));
    row.resumed = true;
    return row;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // not one of ours, or from an older grader: grade again
  }
}

bool mark_graded(const std::string& learner_dir, const GradedWith& with, const ClassRow& row) {
  const auto path = std::filesystem::path(learner_dir) / kDoneFile;
  const auto temporary = path.string() + ".tmp";
  const nlohmann::json done = {{"stage", with.stage}, {"seed", with.seed}, {"histories", with.histories},
                               {"command", row.command}, {"row", to_json(row)}};
  if (!write_text_file(temporary, done.dump(2) + "\n")) return false;
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::cerr << "grader class: cannot rename " << temporary << " to " << path.string() << "\n";
    return false;
  }
  return true;
}

}  // namespace grader
