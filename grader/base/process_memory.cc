// process_memory.cc: see process_memory.h. Reads /proc/<pid>/stat (the process group is the fifth field,
// the third after the command name's closing parenthesis) and /proc/<pid>/status ("VmRSS:  1234 kB").
#include "grader/base/process_memory.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace grader {
namespace {

std::optional<pid_t> process_group_of(const std::filesystem::path& proc_entry) {
  std::ifstream in(proc_entry / "stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name may hold spaces and parentheses; it ends at the last ')'.
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string state;
  pid_t parent = 0, group = 0;
  if (!(fields >> state >> parent >> group)) return std::nullopt;
  return group;
}

std::int64_t resident_kib(const std::filesystem::path& proc_entry) {
  std::ifstream in(proc_entry / "status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));  // "VmRSS:\t  1234 kB"
  return 0;  // a kernel thread, or a process that just ended
}

}  // namespace

std::int64_t group_resident_kib(pid_t group) {
  if (group <= 0) return 0;
  std::int64_t total = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    if (process_group_of(entry.path()) == group) total += resident_kib(entry.path());
  }
  return total;
}

MemoryWatch::MemoryWatch(pid_t group) : group_(group) {
  const std::int64_t now = group_resident_kib(group_);
  figures_ = {now, now, now};
  sampler_ = std::jthread([this](std::stop_token stop) {
    while (!stop.stop_requested()) {
      std::this_thread::sleep_for(kMemorySampleEvery);
      const std::int64_t kib = group_resident_kib(group_);
      std::lock_guard lock(mutex_);
      figures_.peak_kib = std::max(figures_.peak_kib, kib);
    }
  });
}

MemoryFigures MemoryWatch::stop() {
  sampler_.request_stop();
  sampler_ = {};  // joins
  const std::int64_t now = group_resident_kib(group_);
  std::lock_guard lock(mutex_);
  figures_.end_kib = now;
  figures_.peak_kib = std::max(figures_.peak_kib, now);
  return figures_;
}

}  // namespace grader
