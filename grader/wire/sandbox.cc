// sandbox.cc: see sandbox.h. bwrap applies its mounts in the order given, each over what the ones before
// made: the system first, then the empty folders that hide, then the folders the server needs, bound back,
// then the empty folders made read-only.
#include "grader/wire/sandbox.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace grader {
namespace {

namespace fs = std::filesystem;

// Already an empty folder of the server's own (base_options), and writable: the folder around a temporary
// folder under /tmp is not hidden again (it would be made read-only last).
constexpr const char* kPrivateTmp = "/tmp";

// What every sandboxed command runs under, the probe of sandbox_unavailable() too (so the probe fails
// exactly when a server's start would):
//   --ro-bind / /        the system, read-only: its runtime and libraries, nothing it can change
//   --dev /dev           a /dev of its own: null, zero, random, tty, pts; no disks (read-only at the end)
//   --ro-bind /dev/null /dev/tty   no way to the grader's terminal (it stays in the grader's session, so that
//                        the grader's signals to its process group reach it; a terminal could be typed into)
//   --size --tmpfs /dev/shm, /tmp  an empty /tmp and /dev/shm of its own, of memory_folder_mib each: no other
//                        server's folder or socket is there, and what it writes there (memory, not the
//                        folder the grader watches) is bounded
//   --proc /proc         the /proc of its own pid namespace: its processes only, and no /proc/PID/root of
//                        the grader's (through which a plain /proc shows every file the grader sees)
//   --unshare-pid        its own pid namespace: it cannot see or signal the grader or its keeper; the
//                        keeper's watch still walks it (host pids in the grader's /proc); its first
//                        process, bwrap's own, ends every process in it when it ends
//   --unshare-ipc        its own System V and POSIX message-queue namespace
//   --die-with-parent    bwrap ends with the keeper (PR_SET_PDEATHSIG), as the shell did without it
//   --cap-drop ALL       no capability: bwrap started by root keeps them all otherwise, and with
//                        CAP_SYS_ADMIN the server could remount / read-write or unmount the empty folders
// No --unshare-net: the grader talks to the server over loopback, so the network stays the host's.
std::vector<std::string> base_options(std::int64_t memory_folder_mib) {
  const std::string bytes = std::to_string(memory_folder_mib << 20);
  return {"--ro-bind", "/", "/", "--dev", "/dev", "--ro-bind", "/dev/null", "/dev/tty", "--size", bytes,
          "--tmpfs", "/dev/shm", "--proc", "/proc", "--size", bytes, "--tmpfs", kPrivateTmp, "--unshare-pid",
          "--unshare-ipc", "--die-with-parent", "--cap-drop", "ALL"};
}

// Never hidden, even when one is the folder around the working folder (a submission kept in /opt/lab):
// the server's runtime, its libraries and the kernel's files are there.
const std::vector<std::string> kSystemFolders = {"/",     "/bin", "/boot", "/dev",  "/etc", "/lib", "/lib32",
                                                 "/lib64", "/opt", "/proc", "/run", "/sbin", "/sys", "/usr",
                                                 "/var"};

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    auto colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    const fs::path candidate = fs::path(dirs.substr(at, colon - at)) / name;
    if (colon > at && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    at = colon + 1;
  }
  return "";
}

// The folder as bwrap needs it (absolute, no symlink), or "" when it is not an existing folder.
std::string real_folder(const std::string& path) {
  std::error_code error;
  const fs::path real = fs::canonical(fs::absolute(path, error), error);
  if (error || !fs::is_directory(real, error)) return "";
  return real.string();
}

bool inside(const std::string& path, const std::string& folder) {
  return path.size() > folder.size() && path.starts_with(folder) && (folder == "/" || path[folder.size()] == '/');
}

std::string parent_of(const std::string& folder) { return fs::path(folder).parent_path().string(); }

}  // namespace

std::vector<std::string> bwrap_command(const SandboxView& view) {
  const std::string bwrap = find_on_path("bwrap");
  if (bwrap.empty()) throw std::runtime_error(std::string("bwrap is not installed: ") + kSandboxInstallHint);
  const std::string work = real_folder(view.work_dir), own = real_folder(view.own_dir);
  if (work.empty() || own.empty()) throw std::runtime_error("the sandbox's working or temporary folder is missing");
  const char* home = std::getenv("HOME");
  std::vector<std::string> hidden = {parent_of(work), home ? home : "", parent_of(own)};
  hidden.insert(hidden.end(), view.hidden.begin(), view.hidden.end());
  std::vector<std::string> folders;
  for (const auto& h : hidden)
    if (auto real = real_folder(h); !real.empty() && real != work && real != kPrivateTmp &&
                                    std::find(kSystemFolders.begin(), kSystemFolders.end(), real) == kSystemFolders.end())
      folders.push_back(real);
  // Outer folders first: a folder hidden inside another one is then mounted on the empty one (harmless).
  std::sort(folders.begin(), folders.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());

  std::vector<std::string> args = {bwrap};
  const auto base = base_options(view.memory_folder_mib);
  args.insert(args.end(), base.begin(), base.end());
  // The folders around the working folder go before it is bound back; those inside it, after.
  for (const auto& f : folders)
    if (!inside(f, work)) args.insert(args.end(), {"--tmpfs", f});
  args.insert(args.end(), {"--ro-bind", work, work});
  for (const auto& f : folders)
    if (inside(f, work)) args.insert(args.end(), {"--tmpfs", f});
  // Over anything above: {db} and the server's output are written here.
  args.insert(args.end(), {"--bind", own, own});
  // Last, when nothing more is mounted in them: the empty folders read-only too, so a write there fails
  // as it would outside (it would only land in memory, but a server should learn it wrote nowhere).
  for (const auto& f : folders) args.insert(args.end(), {"--remount-ro", f});
  args.insert(args.end(), {"--remount-ro", "/dev", "--chdir", work, "--"});
  return args;
}

std::string sandbox_unavailable() {
  const std::string bwrap = find_on_path("bwrap");
  if (bwrap.empty())
    return std::string("bwrap (Debian's bubblewrap) is not installed; install it with ") + kSandboxInstallHint;
  std::vector<std::string> args = {bwrap};
  const auto base = base_options(SandboxView{}.memory_folder_mib);
  args.insert(args.end(), base.begin(), base.end());
  args.insert(args.end(), {"--", "/bin/true"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // What bwrap says goes to the grader's stderr, before the grader's own line.
  pid_t pid = -1;
  if (::posix_spawn(&pid, bwrap.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    return "bwrap could not be started (" + bwrap + ")";
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "bwrap cannot make its namespaces on this machine (its message is above): for a user other than root "
           "the kernel must allow unprivileged user namespaces (Debian: sysctl kernel.unprivileged_userns_clone=1), "
           "and a container must allow them too; or grade in a container or a VM instead";
  return "";
}

std::string sandbox_refuses(const std::string& command_template) {
  if (command_template.find("{db_name}") == std::string::npos) return "";
  return "--sandbox is for servers with a database file ({db}): a server on PostgreSQL ({db_name}) reaches its "
         "database through a Unix socket in /tmp, and the sandbox gives it an empty /tmp of its own";
}

}  // namespace grader
