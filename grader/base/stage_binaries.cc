// stage_binaries.cc: see stage_binaries.h.
#include "grader/base/stage_binaries.h"

#include <filesystem>

namespace grader {

const std::vector<StageServer>& stage_servers() {
  static const std::vector<StageServer> subjects = {
      {"stage1_naive", "s1", 1, {}},
      {"stage2_unique_key", "s2", 2, {}},
      {"stage3_fingerprint", "s3", 3, {}},
      {"stage4_two_phase", "s4", 4, {}},
      {"stage5_replay", "s5", 5, {}},
      {"stage6_scope_ttl", "s6", 6, {}},
      {"wrong_select_then_insert", "w-sel", 2, "stage2.simultaneous-2"},
      {"wrong_insert_or_ignore", "w-ign", 2, "stage2.lost-response-retry"},
      {"wrong_raw_fingerprint", "w-raw", 3, "stage3.equivalent-body"},
      {"wrong_completed_first", "w-cpl", 4, "stage4.crash-before-money"},
      {"wrong_money_first", "w-mny", 4, "stage4.crash-after-money"},
  };
  return subjects;
}

std::string default_bin_dir() {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "build/stages";
  return (self.parent_path().parent_path() / "stages").string();
}

std::string grader_path() {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "grader" : self.string();
}

std::optional<std::string> find_stage_binary(const std::string& name, const std::string& bin_dir) {
  const std::string dir = bin_dir.empty() ? default_bin_dir() : bin_dir;
  for (const auto& subject : stage_servers()) {
    bool by_stage = !subject.must_fail && name == std::to_string(subject.stage);
    if (!by_stage && name != subject.binary && name != subject.label) continue;
    auto path = std::filesystem::path(dir) / subject.binary;
    if (std::filesystem::exists(path)) return path.string();
    return std::nullopt;
  }
  return std::nullopt;
}

std::string stage_command(const std::string& binary_path, const std::string& extra) {
  std::string command = binary_path + " --port {port} --db {db} --admin-token {admin_token} --lab-controls --quiet";
  return extra.empty() ? command : command + " " + extra;
}

}  // namespace grader
