// lab_controls.h: the lab's fault points. LAB.md "Lab controls".
//
// With --lab-controls a server honours two request headers, so a test or an instructor can open the
// windows in which idempotency bugs live:
//   Lab-Delay-Ms: N          sleep N ms (capped at kMaxDelayMs) where the stage calls delay_if_asked():
//                            after the key is claimed (stage 1: after validation), before the money moves
//   Lab-Crash: before-money  _exit() at CrashPoint::BeforeMoney: the key is recorded, the money is not
//   Lab-Crash: after-money   _exit() at CrashPoint::AfterMoney: the money is committed, no response written
// Without the flag both headers are ignored: a production server must never let a client kill it.
//
// Thread safety: immutable after construction.
#pragma once

#include <chrono>

namespace httplib { struct Request; }

namespace lab {

enum class CrashPoint { BeforeMoney, AfterMoney };

class LabControls {
 public:
  static constexpr std::chrono::milliseconds kMaxDelay{10'000};   // a lab delay, not a denial of service
  static constexpr int kCrashExitCode = 86;                        // tells a crash apart from other exits

  explicit LabControls(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  void delay_if_asked(const httplib::Request& req) const;
  void crash_if_asked(const httplib::Request& req, CrashPoint point) const;

 private:
  const bool enabled_;
};

}  // namespace lab
