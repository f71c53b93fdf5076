// lab_controls.h: the lab's fault points. docs/reference/lab-controls.md "Lab controls".
//
// With --lab-controls a server honours three request headers, so a test or an instructor can open the
// windows in which idempotency bugs live:
//   Lab-Delay-Ms: N          sleep N ms (at most LabControls::kMaxDelay, 10 s) where the stage calls
//                            delay_if_asked(): after the key is claimed (stage 1: after validation), before
//                            the money moves
//   Lab-Crash: before-money  _exit(kCrashExitCode) where the stage calls crash_if_asked(req,
//                            CrashPoint::BeforeMoney): the key is recorded, the money is not
//   Lab-Crash: after-money   the same at CrashPoint::AfterMoney: the money is committed, no response written
//   Lab-Crash: after-commit-N  (N = 1..9) _exit(kCrashExitCode) as soon as the request's N-th write
//                            transaction has committed, wherever the stage commits (common/db.cc:
//                            WriteTransaction::commit asks commit_crash_due()). The crash lands between any
//                            two commits of a request, so a request split over two transactions is caught
//                            every time, not by a SIGKILL's luck. A request with fewer commits ends normally.
//   Lab-Fail: busy           the money's transaction fails as if another writer held the database past the
//                            busy timeout (DatabaseBusy: 503, nothing moved); Bank::move_money asks
//                            money_fault_armed(). Stage 4 on must then free the key: a retry runs at once.
// Without the flag these headers are ignored: a production server must never let a client kill or fail it.
//
//   lab.controls.delay_if_asked(req);
//   lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);
//   MoneyOutcome outcome = lab.bank.move_money_now(*client, *request);   // Lab-Fail armed by install_money_routes
//   lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);
//
// Thread safety: immutable after construction.
#pragma once

#include <chrono>

namespace httplib { struct Request; }

namespace lab {

enum class CrashPoint { BeforeMoney, AfterMoney };

// Lab-Fail: armed for one request on its handler thread (httplib runs a request on one thread), disarmed
// when this object ends: a fault never leaks into the thread's next request.
class [[nodiscard]] LabFault {
 public:
  explicit LabFault(bool busy);
  ~LabFault();
  LabFault(const LabFault&) = delete;
  LabFault& operator=(const LabFault&) = delete;
};
// True while a request that asked for Lab-Fail: busy runs on this thread.
bool money_fault_armed();

// Lab-Crash: after-commit-N: armed for one request on its handler thread, like LabFault (commits made by
// other threads, the sweeper's, do not count), disarmed when this object ends.
class [[nodiscard]] CommitCrash {
 public:
  explicit CommitCrash(int after_commits);   // 0: not armed
  ~CommitCrash();
  CommitCrash(const CommitCrash&) = delete;
  CommitCrash& operator=(const CommitCrash&) = delete;
};
// Called after every commit: counts this thread's commits and ends the process at the armed one.
void crash_if_commit_due();

class LabControls {
 public:
  static constexpr std::chrono::milliseconds kMaxDelay{10'000};   // a lab delay, not a denial of service
  static constexpr int kCrashExitCode = 86;                        // tells a crash apart from other exits

  explicit LabControls(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }

  void delay_if_asked(const httplib::Request& req) const;
  void crash_if_asked(const httplib::Request& req, CrashPoint point) const;
  LabFault fault_if_asked(const httplib::Request& req) const;
  CommitCrash commit_crash_if_asked(const httplib::Request& req) const;

 private:
  const bool enabled_;
};

}  // namespace lab
