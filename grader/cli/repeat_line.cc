// repeat_line.cc: see repeat_line.h.
#include "grader/cli/repeat_line.h"

#include <filesystem>

#include "grader/base/stage_binaries.h"
#include "grader/report/report.h"

namespace grader {

std::string repeat_prefix() {
  std::error_code error;
  const auto here = std::filesystem::current_path(error);
  const std::string grader = shell_quote(grader_path());
  return error ? grader : "cd " + shell_quote(here.string()) + " && " + grader;
}

}  // namespace grader
