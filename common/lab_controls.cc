// lab_controls.cc: see lab_controls.h.
#include "common/lab_controls.h"

#include <httplib.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

namespace lab {

void LabControls::delay_if_asked(const httplib::Request& req) const {
  if (!enabled_ || !req.has_header("Lab-Delay-Ms")) return;
  std::string text = req.get_header_value("Lab-Delay-Ms");
  long long ms = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (error != std::errc() || end != text.data() + text.size() || ms <= 0) return;   // not a delay: ignored
  std::this_thread::sleep_for(std::min(std::chrono::milliseconds(ms), kMaxDelay));
}

namespace {
// _exit, not exit: no destructors, no flushing of SQLite, no response: exactly what a kill would leave.
[[noreturn]] void crash_now(const std::string& where) {
  std::fprintf(stderr, "lab: Lab-Crash: %s: the process ends now (exit %d)\n", where.c_str(),
               LabControls::kCrashExitCode);
  std::fflush(stderr);
  _exit(LabControls::kCrashExitCode);
}
constexpr std::string_view kAfterCommit = "after-commit-";
}  // namespace

void LabControls::crash_if_asked(const httplib::Request& req, CrashPoint point) const {
  if (!enabled_) return;
  std::string asked = req.get_header_value("Lab-Crash");
  const char* here = point == CrashPoint::BeforeMoney ? "before-money" : "after-money";
  if (asked == here) crash_now(here);
}

namespace {
thread_local bool busy_fault_armed = false;
}  // namespace

LabFault::LabFault(bool busy) { busy_fault_armed = busy; }
LabFault::~LabFault() { busy_fault_armed = false; }
bool money_fault_armed() { return busy_fault_armed; }

LabFault LabControls::fault_if_asked(const httplib::Request& req) const {
  return LabFault(enabled_ && req.get_header_value("Lab-Fail") == "busy");
}

namespace {
thread_local int commits_before_crash = 0;  // 0: not armed; else the commit to crash after
thread_local int commits_so_far = 0;
}  // namespace

CommitCrash::CommitCrash(int after_commits) {
  commits_before_crash = after_commits;
  commits_so_far = 0;
}
CommitCrash::~CommitCrash() { commits_before_crash = 0; }

void crash_if_commit_due() {
  if (commits_before_crash == 0 || ++commits_so_far < commits_before_crash) return;
  crash_now(std::string(kAfterCommit) + std::to_string(commits_before_crash));
}

CommitCrash LabControls::commit_crash_if_asked(const httplib::Request& req) const {
  const std::string asked = req.get_header_value("Lab-Crash");
  // One digit, 1 to 9: anything else is not this control, and is ignored like any unknown value.
  const bool well_formed = asked.size() == kAfterCommit.size() + 1 && asked.rfind(kAfterCommit, 0) == 0 &&
                           asked.back() >= '1' && asked.back() <= '9';
  return CommitCrash(enabled_ && well_formed ? asked.back() - '0' : 0);
}

}  // namespace lab
