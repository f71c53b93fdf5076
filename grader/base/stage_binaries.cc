// stage_binaries.cc: see stage_binaries.h.
#include "grader/base/stage_binaries.h"

#include <filesystem>

namespace grader {

const std::vector<StageServer>& stage_servers() {
  static const std::vector<StageServer> subjects = {
// The rows of stages/stage_servers.json, written by grader/base/stage_server_rows.cmake (the build writes
// it into the build tree, scripts/gradescope/package.sh into the zip).
#include "grader/base/stage_server_rows.inc"
  };
  return subjects;
}

// <build>/grader/grader (or <build>/playground/playground) -> <build>/<name>.
static std::string beside_this_program(const std::string& name) {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "build/" + name;
  return (self.parent_path().parent_path() / name).string();
}

std::string default_bin_dir() { return beside_this_program("stages"); }

std::string default_book_dir() { return beside_this_program("book"); }

std::string grader_path() {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "grader" : self.string();
}

const StageServer* find_stage_server(const std::string& name) {
  for (const auto& subject : stage_servers()) {
    bool by_stage = !subject.must_fail && name == std::to_string(subject.stage);
    if (by_stage || name == subject.binary || name == subject.label) return &subject;
  }
  return nullptr;
}

std::optional<std::string> find_stage_binary(const std::string& name, const std::string& bin_dir) {
  const StageServer* subject = find_stage_server(name);
  if (!subject) return std::nullopt;
  auto path = std::filesystem::path(bin_dir.empty() ? default_bin_dir() : bin_dir) / subject->binary;
  if (!std::filesystem::exists(path)) return std::nullopt;
  return path.string();
}

std::string stage_command(const std::string& binary_path, const std::string& extra) {
  std::string command = binary_path + " --port {port} --db {db} --admin-token {admin_token} --lab-controls --quiet";
  return extra.empty() ? command : command + " " + extra;
}

}  // namespace grader
