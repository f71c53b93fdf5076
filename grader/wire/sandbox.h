// sandbox.h: what a server sees under `grader --sandbox`: Debian's bubblewrap (bwrap) around its shell.
// docs/teach/grader-for-courses.md "Untrusted servers".
//
//   SandboxView view{.work_dir = "/subs/alice", .own_dir = "/tmp/grader-Ab12Cd", .hidden = {"/class-report"}};
//   std::vector<std::string> wrapper = bwrap_command(view);  // bwrap and its options, then "/bin/sh -c CMD"
//   std::string why = sandbox_unavailable();                 // "" when bwrap can make its namespaces here
//
// Inside, the server sees the system read-only, an empty /tmp of its own, its working folder read-only (it
// runs its own files), its temporary folder read-write ({db} and its output), its own processes only (a pid
// namespace), and an empty read-only folder in place of each hidden one: the folder around its working folder
// (other submissions), the home folder, the folder around its temporary folder (other servers' folders), and
// whatever the grader adds (its reports). The network is the host's: the grader talks to it over loopback.
// A server that keeps its data in PostgreSQL ({db_name}) is refused: its Unix socket is in /tmp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grader {

// The switch and the extra folders, as the command line gave them (ServerLimits, server_process.h).
struct SandboxSettings {
  bool enabled = false;
  std::vector<std::string> hidden;  // also hidden (the grader's report folders): absolute or relative
};

struct SandboxView {
  std::string work_dir;             // the command's working folder: read-only
  std::string own_dir;              // the server's temporary folder: read-write
  std::vector<std::string> hidden;  // each replaced by an empty folder (SandboxSettings::hidden)
  std::int64_t memory_folder_mib = 512;  // the size of its /tmp and of its /dev/shm, each: they are in memory,
                                         // which the grader's watch does not see (ServerLimits::folder_mib)
};

// How to get bwrap where it is missing: the project's own installer (its bubblewrap group).
inline constexpr const char* kSandboxInstallHint = "scripts/ensure-deps.sh bubblewrap";

// The bwrap command line that runs a command in `view` (its first word is bwrap's full path); the caller
// appends "/bin/sh", "-c", COMMAND. Throws std::runtime_error when bwrap is not on PATH.
std::vector<std::string> bwrap_command(const SandboxView& view);

// Why --sandbox cannot work on this machine (bwrap missing, or it cannot make its namespaces: no user
// namespaces for this user, a container that forbids them), with how to fix it; "" when it works. Runs
// bwrap once, on /bin/true.
std::string sandbox_unavailable();

// A {db_name} server cannot run in the sandbox (its socket is in /tmp): the message that says so, or "".
std::string sandbox_refuses(const std::string& command_template);

}  // namespace grader
