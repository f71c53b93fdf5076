// process_keeper.cc: see process_keeper.h. Between fork() and exit the keeper makes system calls only.
#include "grader/wire/process_keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {
namespace {

// How long the keeper goes on killing a tree that keeps forking before it gives up (the grader's own
// reap_orphans and the process limit, ServerLimits, are behind it).
constexpr int kEndTreeRounds = 5'000;  // of 1 ms each
// Orphans and children the keeper kills in one round: its children file is read into this.
constexpr std::size_t kChildrenBytes = 64 * 1024;

// The signals that make the keeper end the tree and exit: the ones that would end it by default.
constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM};

char children_text[kChildrenBytes];  // the keeper's own copy after fork: no allocation

// Reads /proc/thread-self/children (the keeper has one thread) and sends SIGKILL to each pid in it.
// Returns how many were listed.
int kill_children() {
  int fd = ::open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = ::read(fd, children_text, sizeof children_text - 1);
  ::close(fd);
  int listed = 0;
  pid_t pid = 0;
  for (ssize_t i = 0; i < (n > 0 ? n : 0); ++i) {
    char c = children_text[i];
    if (c >= '0' && c <= '9') {
      pid = pid * 10 + (c - '0');
    } else if (pid > 0) {
      ::kill(pid, SIGKILL);
      ++listed, pid = 0;
    }
  }
  if (pid > 0) ::kill(pid, SIGKILL), ++listed;
  return listed;
}

// Kills the command's group, then every child and every orphan that comes back, until none is left.
// Remembers the command's status when its first process is reaped here.
void end_tree(pid_t server, int* server_status, bool* server_reaped) {
  ::kill(-server, SIGKILL);
  for (int round = 0; round < kEndTreeRounds; ++round) {
    int listed = kill_children();
    int status = 0;
    pid_t reaped;
    while ((reaped = ::waitpid(-1, &status, WNOHANG)) > 0)
      if (reaped == server) *server_status = status, *server_reaped = true;
    if (reaped < 0 && errno == ECHILD && listed == 0) return;
    timespec pause{0, 1'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

// Ends the keeper as the command ended: the same exit code, or the same signal. bwrap (a wrapped command)
// reports its command's end by signal N as exit 128+N, the shell's convention: read back as that signal, so
// the grader names a SIGXFSZ or a SIGKILL the same with or without --sandbox (a command that exits 137 by
// itself then reads as signal 9: no real server needs that code).
[[noreturn]] void exit_like(int status, bool wrapped) {
  int s = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (wrapped && WIFEXITED(status) && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + NSIG)
    s = WEXITSTATUS(status) - 128;
  if (s != 0) {
    ::signal(s, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, s);
    ::sigprocmask(SIG_UNBLOCK, &one, nullptr);
    ::kill(::getpid(), s);
    _exit(128 + s);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

void set_limit(int resource, rlim_t value) {
  rlimit limit{value, value};
  ::setrlimit(resource, &limit);
}

// The command's first process: its own group, the limits, the grader's signal handling undone, then exec of
// argv (/bin/sh -c COMMAND, or the wrapper before it), made before the fork.
[[noreturn]] void exec_command(const KeptCommand& command, const char* file, char* const* argv, pid_t keeper,
                               int keep_fd) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the keeper has one thread, so "parent" means the keeper itself
  if (::getppid() != keeper) _exit(127);  // the keeper died before the line above
  ::close(keep_fd);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // a blocked mask survives exec: the server would miss SIGTERM
  ::signal(SIGPIPE, SIG_DFL);                  // and so does an ignored signal
  set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(command.limits.file_mib) << 20);
  rlimit cpu{static_cast<rlim_t>(command.limits.cpu_seconds), static_cast<rlim_t>(command.limits.cpu_seconds + 5)};
  ::setrlimit(RLIMIT_CPU, &cpu);
  set_limit(RLIMIT_CORE, 0);  // no core files in the grader's folder
  if (command.stdout_fd >= 0) ::dup2(command.stdout_fd, STDOUT_FILENO);
  if (command.stderr_fd >= 0) ::dup2(command.stderr_fd, STDERR_FILENO);
  int null_in = ::open("/dev/null", O_RDONLY);
  if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
  ::syscall(SYS_close_range, 3U, ~0U, 0U);
  ::execv(file, argv);
  _exit(127);
}

// The keeper: starts the command, then waits for it to end, for SIGTERM, or for the grader to go away.
[[noreturn]] void keep(const KeptCommand& command, const char* file, char* const* argv, int keep_fd) {
  const pid_t keeper = ::getpid();
  for (int s = 1; s < NSIG; ++s) ::signal(s, SIG_DFL);  // the grader's handlers are not the keeper's
  ::signal(SIGPIPE, SIG_IGN);                           // a grader gone is read as end-of-file, not a signal
  // Only the socket to the grader and the command's output stay open: another server's socket inherited
  // here would keep that server's keeper from seeing the grader go.
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != keep_fd && fd != command.stdout_fd && fd != command.stderr_fd) ::close(fd);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  sigset_t watched;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  for (int s : kStopSignals) sigaddset(&watched, s);
  ::sigprocmask(SIG_BLOCK, &watched, nullptr);
  int signals = ::signalfd(-1, &watched, SFD_CLOEXEC);

  pid_t server = ::fork();
  if (server < 0) _exit(126);
  if (server == 0) exec_command(command, file, argv, keeper, keep_fd);
  ::setpgid(server, server);  // also here: the group exists before the grader's first kill
  if (command.stdout_fd >= 0) ::close(command.stdout_fd);
  if (command.stderr_fd >= 0) ::close(command.stderr_fd);
  ::send(keep_fd, &server, sizeof server, MSG_NOSIGNAL);

  int status = 0;
  bool reaped = false;
  while (!reaped) {
    pollfd fds[2] = {{keep_fd, POLLIN, 0}, {signals, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[0].revents) break;  // the grader closed its end, or went away: end it all
    if (fds[1].revents) {
      signalfd_siginfo info;
      if (::read(signals, &info, sizeof info) == sizeof info && static_cast<int>(info.ssi_signo) != SIGCHLD) break;
      pid_t r;
      int s = 0;
      while ((r = ::waitpid(-1, &s, WNOHANG)) > 0)
        if (r == server) status = s, reaped = true;
    }
  }
  end_tree(server, &status, &reaped);
  if (!reaped) _exit(125);
  exit_like(status, !command.wrapper.empty());
}

}  // namespace

KeptProcess start_kept(const KeptCommand& command) {
  // The command's argv, made here: the keeper may not allocate after the fork.
  // Its first word is the file run: the wrapper's (a full path), else /bin/sh, whose argv[0] stays "sh".
  std::vector<std::string> words = command.wrapper;
  words.insert(words.end(), {words.empty() ? "sh" : "/bin/sh", "-c", command.shell_command});
  std::string file = command.wrapper.empty() ? "/bin/sh" : command.wrapper.front();
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  pid_t keeper = ::fork();
  if (keeper < 0) {
    ::close(pair[0]), ::close(pair[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (keeper == 0) {
    ::close(pair[0]);
    keep(command, file.c_str(), argv.data(), pair[1]);
  }
  ::close(pair[1]);
  KeptProcess kept{.keeper = keeper, .server_group = -1, .control_fd = pair[0]};
  pid_t server = -1;
  ssize_t got;
  do got = ::recv(kept.control_fd, &server, sizeof server, MSG_WAITALL);
  while (got < 0 && errno == EINTR);
  if (got != sizeof server || server <= 0) {
    ::kill(keeper, SIGKILL);
    ::waitpid(keeper, nullptr, 0);
    ::close(kept.control_fd);
    throw std::runtime_error("the keeper could not start the server's process");
  }
  kept.server_group = server;
  return kept;
}

void end_kept(const KeptProcess& kept) {
  if (kept.keeper > 0) ::kill(kept.keeper, SIGTERM);
}

void release_kept(KeptProcess& kept) {
  if (kept.control_fd >= 0) ::close(kept.control_fd);
  kept = KeptProcess{};
}

void become_subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }

void end_every_child() {
  // Orphans of a keeper the server killed come back to the grader's threads, any of them.
  // An orphan killed here may leave its own children to the grader: list again until none is left.
  for (bool any = true; any;) {
    any = false;
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
      std::ifstream children(task.path() / "children");
      for (pid_t pid; children >> pid; any = true) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    }
  }
}

}  // namespace grader
