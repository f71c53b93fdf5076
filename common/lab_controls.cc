// lab_controls.cc: see lab_controls.h.
#include "common/lab_controls.h"

#include <httplib.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
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

void LabControls::crash_if_asked(const httplib::Request& req, CrashPoint point) const {
  if (!enabled_) return;
  std::string asked = req.get_header_value("Lab-Crash");
  const char* here = point == CrashPoint::BeforeMoney ? "before-money" : "after-money";
  if (asked != here) return;
  std::fprintf(stderr, "lab: Lab-Crash: %s: the process ends now (exit %d)\n", here, kCrashExitCode);
  std::fflush(stderr);
  // _exit, not exit: no destructors, no flushing of SQLite, no response: exactly what a kill would leave.
  _exit(kCrashExitCode);
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

}  // namespace lab
