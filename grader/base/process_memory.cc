// process_memory.cc: see process_memory.h. Reads /proc/<pid>/stat (the process group is the fifth field,
// the third after the command name's closing parenthesis; utime and stime, in clock ticks, the 14th and
// 15th) and /proc/<pid>/status ("VmRSS:  1234 kB"), and each thread's /proc/<pid>/task/<tid>/status
// ("voluntary_ctxt_switches:  42").
#include "grader/base/process_memory.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace grader {
namespace {

// The fields of /proc/<pid>/stat after the command name: [0] is the state, [2] the process group, [11] and
// [12] utime and stime. The command name may hold spaces and parentheses; it ends at the last ')'.
std::vector<std::string> stat_fields(const std::filesystem::path& proc_entry) {
  std::ifstream in(proc_entry / "stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = stat.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(stat.substr(close + 1));
  std::vector<std::string> out;
  for (std::string field; fields >> field && out.size() < 13;) out.push_back(field);
  return out;
}

std::optional<pid_t> process_group_of(const std::vector<std::string>& fields) {
  if (fields.size() < 3) return std::nullopt;
  return static_cast<pid_t>(std::stol(fields[2]));
}

// Every process of the group, as its /proc entry and its stat fields.
template <typename Each>
void for_each_in_group(pid_t group, Each each) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const auto fields = stat_fields(entry.path());
    if (process_group_of(fields) == group) each(entry.path(), fields);
  }
}

// The number after `field` in a status file ("VmRSS:\t  1234 kB"), or 0: a kernel thread, or a process
// that just ended.
std::int64_t status_figure(const std::filesystem::path& status, std::string_view field) {
  std::ifstream in(status);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field, 0) == 0) return std::stoll(line.substr(field.size()));
  return 0;
}

std::int64_t resident_kib(const std::filesystem::path& proc_entry) { return status_figure(proc_entry / "status", "VmRSS:"); }

}  // namespace

std::int64_t group_resident_kib(pid_t group) {
  if (group <= 0) return 0;
  std::int64_t total = 0;
  for_each_in_group(group, [&](const std::filesystem::path& entry, const auto&) { total += resident_kib(entry); });
  return total;
}

std::int64_t group_cpu_ms(pid_t group) {
  if (group <= 0) return 0;
  const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
  std::int64_t ticks = 0;
  for_each_in_group(group, [&](const std::filesystem::path&, const std::vector<std::string>& fields) {
    if (fields.size() >= 13) ticks += std::stoll(fields[11]) + std::stoll(fields[12]);
  });
  return ticks_per_second > 0 ? ticks * 1000 / ticks_per_second : 0;
}

std::int64_t group_waits(pid_t group) {
  if (group <= 0) return 0;
  std::int64_t waits = 0;
  for_each_in_group(group, [&](const std::filesystem::path& entry, const auto&) {
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator(entry / "task", error))
      waits += status_figure(task.path() / "status", "voluntary_ctxt_switches:");
  });
  return waits;
}

std::vector<pid_t> tree_pids(pid_t root) {
  std::vector<pid_t> below, pending{root};
  while (!pending.empty() && static_cast<std::int64_t>(below.size()) < kTreeMost) {
    const pid_t pid = pending.back();
    pending.pop_back();
    if (pid != root) below.push_back(pid);
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
      std::ifstream children(task.path() / "children");
      for (pid_t child; children >> child;) pending.push_back(child);
    }
  }
  return below;
}

TreeFigures tree_figures(pid_t root) {
  TreeFigures figures;
  for (pid_t pid : tree_pids(root))
    ++figures.processes, figures.resident_kib += resident_kib("/proc/" + std::to_string(pid));
  return figures;
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
