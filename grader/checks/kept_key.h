// kept_key.h: a control for the checks that restart the server: a key completed before the crash, to tell
// whether the key table outlived it. docs/learn/stage-2-unique-key.md "The design",
// docs/learn/stage-6-scope-ttl.md "Stage 6: scope and retention".
//
//   KeptKey kept(run);                             // completed, and recognised, before the crash
//   run.sigkill("..."); run.restart();
//   kept.judge_after_restart(run);                 // a finding if its repeat now moves the money again
//
// Money that moves twice after a crash has three candidate causes: the crash cut a request between its claim
// and its money (stage 4's lesson), the keys did not outlive the process (stage 2's: durable keys), or a
// completed key was forgotten as soon as its lease passed, on the lab clock the checks move (stage 6's:
// retention). A key completed before the crash tells them apart by trying: its repeat is sent once right
// away (no keys at all, if it moves money), once after the lab clock passed the lease (forgotten with the
// lease), and once after the restart (forgotten by the restart). Each finding credits its own lesson, and so
// does every double apply of the check after it (CheckRun::credit_double_applies).
#pragma once

#include "grader/checks/check_run.h"

namespace grader {

class KeptKey {
 public:
  // Sends the transfer on accounts of its own, its repeat, then moves the lab clock past the lease and sends
  // its repeat again; a finding if that repeat moved the money again.
  explicit KeptKey(CheckRun& run);

  // Repeats it after the restart, before the clock moves; a finding if the money moved again (then it returns
  // true), or if the answer is not the completed transfer's (a wrong status, another transfer named).
  bool judge_after_restart(CheckRun& run);

 private:
  enum class Event { LeasePassed, Restart };
  // Repeats it after the event; true when its money moved again (a finding is made).
  bool forgotten(CheckRun& run, Event event);

  Intent* intent_;
  Exchange first_;
  bool recognised_;  // every repeat so far moved nothing: a repeat that does now, the event is what changed
};

}  // namespace grader
