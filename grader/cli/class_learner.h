// class_learner.h: grading one learner of a class (`grader class`) in a child process of their own.
// docs/teach/grader-for-courses.md "Grading a class".
//
//   LearnerRun run{.stage = 5, .seed = 1, .time_limit = std::chrono::minutes(20), .out_dir = "class/alice"};
//   ClassRow row = grade_learner(learner, run);   // never throws: whatever happens is the row
//
// The child is this grader binary itself (/proc/self/exe), run as a learner would run it:
//   grader --stage N --server CMD --seed S --json results.json --junit junit.xml --html report.html
//          [--sandbox --sandbox-hide OUT]
// in the learner's folder (relative paths of their command work), in a process group of its own, with
// TMPDIR a fresh folder of its own (the grader keeps each server's database and output under it; removed
// afterwards), no core files, every file it or its servers write capped at kFileCap, and its stdout and
// stderr read through a pipe into report.txt, cut at kReportCap. After the time limit its group gets
// SIGTERM (the grader stops its servers), then SIGKILL.
//
// The row: from results.json when the child wrote one with checks in it; else an error whose reason says
// what happened (could not start the server, exit status, signal, timed out) with report.txt's first lines.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "grader/cli/class_roster.h"
#include "grader/report/class_row.h"

namespace grader {

// Each file the child and its servers write is cut here (RLIMIT_FSIZE): a server that floods its log
// fills this much, then its write fails (SIGXFSZ), instead of filling the disk. A database of a graded run
// is a few MB.
constexpr std::uint64_t kFileCap = 64ull << 20;  // bytes
// report.txt keeps this much of the child's output; a normal text report is some 20 KB.
constexpr std::size_t kReportCap = 1u << 20;  // bytes
// The grace between SIGTERM and SIGKILL at the time limit: the grader stops its servers (kStopGrace, 3 s).
constexpr std::chrono::seconds kChildStopGrace{6};

struct LearnerRun {
  int stage = 6;
  std::uint64_t seed = 1;
  std::chrono::seconds time_limit{20 * 60};
  std::string out_dir;  // absolute: OUT/<name>/, made empty by the caller
  bool sandbox = false;  // the child runs with --sandbox --sandbox-hide OUT: its server sees no one's reports
  std::optional<int> histories = std::nullopt;  // the child runs with --histories K
};

ClassRow grade_learner(const Learner& learner, const LearnerRun& run);

// On SIGINT, SIGTERM, SIGHUP or SIGPIPE, the groups of the children now running get SIGTERM (each grader
// stops its servers), then `grader class` ends by the same signal. Their own groups keep a terminal's
// Ctrl-C from reaching them otherwise.
void stop_learners_on_signal();

}  // namespace grader
