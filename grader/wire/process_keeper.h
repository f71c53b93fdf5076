// process_keeper.h: runs an untrusted command so that everything it starts ends with it. docs/teach/grader-for-courses.md "Untrusted
// servers".
//
// A process group is not enough: a submission's process may call setsid() (or daemonize: fork twice and let
// the first exit), and a kill of the group misses it; and a grader killed by SIGKILL runs no handler at all.
// So each server gets a keeper, a small process of the grader's own between the grader and the server:
//
//   grader ── keeper (a child subreaper: every orphan below it is re-parented to it, not to init)
//               └── /bin/sh -c COMMAND   (its own process group; the limits below; dies with the keeper)
//                     └── whatever it starts, in any session
//
// Under `grader --sandbox` the keeper runs `bwrap OPTIONS -- /bin/sh -c COMMAND` instead (KeptCommand::wrapper,
// sandbox.h): the same group, and bwrap's pid namespace below it, whose first process ends all of it.
//
//   KeptProcess kept = start_kept(command, {.stdout_fd = out, .stderr_fd = err, .limits = limits});
//   kept.keeper        // waitpid() this one: it ends when the command has ended and nothing of it is left,
//                      // with the command's own exit status (or its signal)
//   kept.server_group  // the command's process group: SIGTERM and SIGKILL go there, as before
//   end_kept(kept)     // or the grader's exit (any, even SIGKILL): the keeper kills the whole tree
//
// The keeper ends every descendant when the command ends, when it is told to (SIGTERM), and when the
// grader goes away (the socket it holds to the grader reads end-of-file: the kernel closes it whatever
// killed the grader). It kills its children, collects the orphans that come back to it, and repeats until
// none is left; a process can escape it only by killing the keeper itself (a server runs as the grader's
// user; under --sandbox its pid namespace hides the keeper and the grader from it).
//
// The keeper is forked from a grader that runs threads, so between fork and exit it makes system calls
// only (no allocation, no locks: another thread may have held the allocator's lock at the fork).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace grader {

// Limits the kernel enforces on each process of the server (setrlimit before exec). A process over one
// gets a signal: SIGXFSZ (a file over file_mib), SIGXCPU then SIGKILL (cpu_seconds). The limits the grader
// watches from outside (memory, processes, the folder) are ServerLimits, server_process.h.
struct KernelLimits {
  std::int64_t file_mib = 256;    // RLIMIT_FSIZE: the largest file it may write (the database, its logs)
  std::int64_t cpu_seconds = 900;  // RLIMIT_CPU: CPU time of one process (a grading run needs far less)
};

struct KeptCommand {
  std::string shell_command;  // run as /bin/sh -c
  // Run first, with "/bin/sh", "-c", shell_command after it (its first word a full path): bwrap and its
  // options under --sandbox (sandbox.h); empty: /bin/sh itself.
  std::vector<std::string> wrapper;
  int stdout_fd = -1, stderr_fd = -1;
  KernelLimits limits;
};

struct KeptProcess {
  pid_t keeper = -1;        // the grader's child: waitpid() on it
  pid_t server_group = -1;  // the command's process group (its first process's pid)
  int control_fd = -1;      // the grader's end of the socket to the keeper: closing it ends the tree
};

// Starts the keeper and the command. Throws std::runtime_error if either cannot start.
KeptProcess start_kept(const KeptCommand& command);
// Tells the keeper to end the whole tree now (it then exits with the command's status). Does not wait.
void end_kept(const KeptProcess& kept);
// Closes the grader's end of the socket (after the keeper has been reaped).
void release_kept(KeptProcess& kept);

// The grader becomes a child subreaper too: a keeper killed by the server (it runs as the grader's user) leaves
// its orphans to the grader, not to init, and end_every_child() ends them. Call once, early in main.
void become_subreaper();
// Kills and reaps every child the grader still has (the keepers, and orphans re-parented to it). For the end
// of main, when nothing the grader runs on purpose is left.
void end_every_child();

}  // namespace grader
