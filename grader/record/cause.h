// cause.h: the causes a finding may claim, each the lack of one trait a server can have. docs/teach/grader.md
// "The grader" (what a finding says).
//
//   Finding f{.anomaly = Anomaly::DoubleApply, .what = "...", .cause = Cause::KeysNotDurable};
//   lacked_trait(Cause::KeysNotDurable) == "durable-keys"
//
// A finding first says what was sent and observed. It names a cause only once the grader has ruled out the
// others by trying (an identical retry, a restart, a clock move, one request at a time); then it says so in
// its words and sets `cause`, so the truth table (truth.h) can hold the claim to what the server truly does.
// A finding that names no cause (Cause::None) may still list candidates in its words: it claims none.
// The traits are the ones stages/stage_servers.json lists under "traits" (and each server under "does").
#pragma once

#include <string_view>

namespace grader {

enum class Cause {
  None,                  // the finding states what it saw, and claims no cause
  KeysNotDurable,        // the key table does not outlive a restart (kept in memory, or emptied at start)
  FingerprintUnstable,   // the same bytes fingerprint differently from one send to the next
  NoLeaseOnLabClock,     // an in_progress key never expires on the lab clock (no lease, or one on its own clock)
};

// The trait whose lack the cause claims ("" for Cause::None).
std::string_view lacked_trait(Cause cause);
std::string_view name(Cause cause);  // kebab-case: "keys-not-durable"

}  // namespace grader
