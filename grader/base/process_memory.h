// process_memory.h: how much memory a server holds, read from /proc, for `grader load` (load.h); and how
// much CPU it has used and how often it woke, for the check that an idle server rests
// (stage6.idle-server-rests).
//
//   MemoryWatch watch(target.process_group());   // samples every kMemorySampleEvery on its own thread
//   ... the phase runs ...
//   MemoryFigures m = watch.stop();               // m.start_kib, m.peak_kib, m.end_kib
//
// The figure is VmRSS (resident set size: the pages in RAM) summed over every process of the server's
// process group, so it is the server's own however it was started (`/bin/sh -c` may or may not exec it)
// and in whatever language. Linux only; elsewhere, and after the group ended, every figure is 0.
// Thread safety: one owner thread; the sampler is internal.
#pragma once

#include <sys/types.h>

#include <vector>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace grader {

// Often enough to see a phase's peak, rarely enough that reading /proc costs nothing.
constexpr std::chrono::milliseconds kMemorySampleEvery{100};

// The VmRSS of every process whose process group is `group`, in KiB.
std::int64_t group_resident_kib(pid_t group);

// The CPU time (user and system) that every process of process group `group` has used so far, in ms.
// Linux only; 0 elsewhere.
std::int64_t group_cpu_ms(pid_t group);

// How many times every thread of every process of process group `group` has given up the CPU to wait
// (voluntary_ctxt_switches in /proc/<pid>/task/<tid>/status, summed): one per sleep, poll, lock or disk
// wait. A resting server wakes a few times a second; a loop that waits on the disk thousands. Linux only.
std::int64_t group_waits(pid_t group);

// The processes below `root` (its children, theirs, and so on; not root itself), found through each
// thread's /proc/<pid>/task/<tid>/children, and the VmRSS they hold together. A whole server tree, whatever
// sessions and process groups it made (grader/wire/process_keeper.h is its root). At most kTreeMost are
// visited: a tree larger than that is over any limit already.
struct TreeFigures {
  std::int64_t processes = 0, resident_kib = 0;
};
constexpr std::int64_t kTreeMost = 4096;
TreeFigures tree_figures(pid_t root);
// The same processes, by pid (at most kTreeMost).
std::vector<pid_t> tree_pids(pid_t root);

struct MemoryFigures {
  std::int64_t start_kib = 0, peak_kib = 0, end_kib = 0;
};

class MemoryWatch {
 public:
  explicit MemoryWatch(pid_t group);
  ~MemoryWatch() = default;  // the jthread stops and joins
  MemoryFigures stop();      // takes the end sample

 private:
  pid_t group_;
  std::mutex mutex_;
  MemoryFigures figures_;  // guarded by mutex_
  std::jthread sampler_;   // last: it starts once the members above exist
};

}  // namespace grader
