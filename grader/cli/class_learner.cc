// class_learner.cc: see class_learner.h. The order: the child's line and environment, fork and exec, the
// pipe read into report.txt until the child ends or its time is up, then the row.
#include "grader/cli/class_learner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "grader/base/stage_binaries.h"
#include "grader/report/class_summary.h"

extern char** environ;

namespace grader {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// How often the reading loop looks at the clock and the child while the pipe is quiet.
constexpr std::chrono::milliseconds kPollInterval{200};
// After the child has ended, what is still in the pipe is read for at most this long (a server of its that
// kept the pipe open would otherwise hold the row forever).
constexpr std::chrono::milliseconds kDrainAfterExit{1'000};
// The reason quotes this many lines of report.txt, each cut at kReasonLineBytes.
constexpr int kReasonLines = 4;
constexpr std::size_t kReasonLineBytes = 200;

// The process groups of the children now running, so a Ctrl-C or a SIGTERM of `grader class` stops them
// too (they run in their own groups, which the terminal's signal does not reach). Written by the grading
// threads, read by the signal handler: lock-free atomics, 0 = a free slot.
constexpr int kMaxChildren = 64;  // --jobs is at most this
std::atomic<pid_t> g_children[kMaxChildren];

int take_slot(pid_t pid) {
  for (int i = 0; i < kMaxChildren; ++i) {
    pid_t free_slot = 0;
    if (g_children[i].compare_exchange_strong(free_slot, pid)) return i;
  }
  return -1;  // more children than slots: --jobs keeps that from happening
}

void stop_children_and_exit(int signal_number) {
  for (auto& child : g_children)
    if (pid_t pid = child.load(); pid > 0) ::kill(-pid, SIGTERM);  // each grader then stops its servers
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// What a child needs, made before fork: after fork only async-signal-safe calls may run.
struct ChildLine {
  std::vector<std::string> args, env;
  std::vector<char*> argv, envp;
  void seal() {
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
};

ChildLine child_line(const Learner& learner, const LearnerRun& run, const std::string& tmp_dir) {
  ChildLine line;
  const fs::path out(run.out_dir);
  line.args = {grader_path(), "--stage", std::to_string(run.stage), "--server", learner.command,
               "--seed", std::to_string(run.seed), "--json", (out / "results.json").string(),
               "--junit", (out / "junit.xml").string(), "--html", (out / "report.html").string()};
  // The whole of OUT: every learner's reports are there, not only this one's (the folder around the
  // learner's own, the other submissions, the child's sandbox hides by itself).
  if (run.sandbox) line.args.insert(line.args.end(), {"--sandbox", "--sandbox-hide", out.parent_path().string()});
  if (run.histories) line.args.insert(line.args.end(), {"--histories", std::to_string(*run.histories)});
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("TMPDIR=") && !std::string_view(*e).starts_with("NO_COLOR="))
      line.env.push_back(*e);
  line.env.push_back("TMPDIR=" + tmp_dir);
  line.env.push_back("NO_COLOR=1");  // report.txt is read in an editor and in the HTML summary's links
  line.seal();
  return line;
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void become_grader(const ChildLine& line, int out_fd, int null_fd, const char* folder) {
  ::setpgid(0, 0);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  const rlimit file_cap{kFileCap, kFileCap}, no_core{0, 0};
  ::setrlimit(RLIMIT_FSIZE, &file_cap);
  ::setrlimit(RLIMIT_CORE, &no_core);  // a crashing server must not leave a core file in the submission
  if (::chdir(folder) != 0) {
    const char msg[] = "grader class: cannot enter the learner's folder\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  // The running binary itself, even if a rebuild has replaced the file at its path since the class began.
  ::execve("/proc/self/exe", line.argv.data(), line.envp.data());
  const char msg[] = "grader class: cannot run the grader binary\n";
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  ::_exit(127);
}

// How the child ended.
struct Ending {
  bool timed_out = false;
  int status = 0;  // waitpid's
};

// Reads the child's output into `report` (its first kReportCap bytes; `dropped` counts the rest) until
// the child has ended, stopping it at the deadline.
Ending watch_child(pid_t pid, int out_fd, Clock::time_point deadline, std::string& report, std::size_t& dropped) {
  Ending ending;
  std::optional<Clock::time_point> exited_at, term_sent_at;
  bool open = true;
  char buf[16 * 1024];
  for (;;) {
    // Has it ended? WNOWAIT leaves it a zombie: its group id cannot be reused while we sweep the group.
    siginfo_t info{};
    if (!exited_at && ::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid)
      exited_at = Clock::now();
    const auto now = Clock::now();
    if (exited_at && (!open || now - *exited_at > kDrainAfterExit)) break;
    if (!exited_at && !term_sent_at && now >= deadline) {
      ending.timed_out = true;
      ::kill(-pid, SIGTERM);
      term_sent_at = now;
    }
    if (term_sent_at && !exited_at && now - *term_sent_at > kChildStopGrace) ::kill(-pid, SIGKILL);
    if (!open) {
      ::poll(nullptr, 0, static_cast<int>(kPollInterval.count()));
      continue;
    }
    pollfd p{out_fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(kPollInterval.count())) <= 0) continue;
    const ssize_t n = ::read(out_fd, buf, sizeof buf);
    if (n <= 0) {
      open = n < 0 && errno == EINTR;
      continue;
    }
    const std::size_t kept = std::min<std::size_t>(n, kReportCap - std::min(kReportCap, report.size()));
    report.append(buf, kept);
    dropped += n - kept;
  }
  ::kill(-pid, SIGKILL);  // whatever is left of its group (the child itself is a zombie by now)
  ::waitpid(pid, &ending.status, 0);
  return ending;
}

std::string duration_text(std::chrono::seconds limit) {
  const auto s = limit.count();
  return s % 60 == 0 ? std::to_string(s / 60) + " min" : std::to_string(s) + " s";
}

// The first lines of the report that say something (not the seed line every run opens with).
std::string first_lines(const std::string& report) {
  std::istringstream in(report);
  std::string out;
  int taken = 0;
  for (std::string line; taken < kReasonLines && std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line.starts_with("grader: seed ")) continue;
    out += (taken++ ? "\n" : "") + line.substr(0, kReasonLineBytes);
  }
  return out.empty() ? "(it printed nothing)" : out;
}

std::string read_whole(const fs::path& path, bool& found) {
  std::ifstream in(path, std::ios::binary);
  found = static_cast<bool>(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The row from how the child ended and what it wrote.
void judge(const Ending& ending, const std::string& report, const LearnerRun& run, ClassRow& row) {
  const std::string said = first_lines(report);
  if (ending.timed_out) {
    row.reason = "timed out after " + duration_text(run.time_limit) + " (its grader and servers were stopped); " +
                 "report.txt has what it printed until then";
    return;
  }
  if (WIFSIGNALED(ending.status)) {
    const int sig = WTERMSIG(ending.status);
    row.reason = "the grader was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + "):\n" + said;
    return;
  }
  const int exit_status = WIFEXITED(ending.status) ? WEXITSTATUS(ending.status) : -1;
  bool found = false;
  const std::string results = read_whole(fs::path(run.out_dir) / "results.json", found);
  if (!found) {
    row.reason = "the grader exited " + std::to_string(exit_status) + " without a results.json:\n" + said;
    return;
  }
  if (!read_results(results, run.stage, row)) {
    row.verdict = "error";
    // The grader's StartError opens with "could not start the server." and says why (grade.cc).
    row.reason = said.starts_with("could not start the server") ? "the grader " + said
                                                                 : "the grader listed no check:\n" + said;
    return;
  }
  if (exit_status != (row.verdict == "pass" ? 0 : 1)) {
    row.reason = "the grader exited " + std::to_string(exit_status) + " though its results.json says " +
                 row.verdict + " (a report it could not write?):\n" + said;
    row.verdict = "error";
  }
}

}  // namespace

void stop_learners_on_signal() {
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(s, stop_children_and_exit);
}

ClassRow grade_learner(const Learner& learner, const LearnerRun& run) {
  const auto started = Clock::now();
  ClassRow row{.name = learner.name, .command = learner.command};
  const fs::path out(run.out_dir);
  if (!learner.problem.empty()) {
    row.reason = learner.problem;
    write_text_file((out / "report.txt").string(), "grader class: " + learner.problem + "\n");
    return row;
  }
  std::string tmp = (fs::temp_directory_path() / "grader-class-XXXXXX").string();
  int fds[2] = {-1, -1};
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!::mkdtemp(tmp.data()) || ::pipe2(fds, O_CLOEXEC) != 0 || null_fd < 0) {
    row.reason = std::string("grader class could not prepare the run: ") + std::strerror(errno);
    return row;
  }
  const ChildLine line = child_line(learner, run, tmp);
  const pid_t pid = ::fork();
  if (pid == 0) become_grader(line, fds[1], null_fd, learner.folder.c_str());
  ::close(fds[1]);
  ::close(null_fd);
  std::string report;
  std::size_t dropped = 0;
  Ending ending;
  if (pid < 0) {
    row.reason = std::string("grader class could not start a grader: ") + std::strerror(errno);
  } else {
    ::setpgid(pid, pid);  // also here: the signal handler may kill its group before the child has run
    const int slot = take_slot(pid);
    ending = watch_child(pid, fds[0], started + run.time_limit, report, dropped);
    if (slot >= 0) g_children[slot] = 0;
  }
  ::close(fds[0]);
  std::error_code ignored;
  fs::remove_all(tmp, ignored);
  if (dropped > 0)
    report += "\n[grader class: report.txt cut at " + std::to_string(kReportCap) + " bytes; " +
              std::to_string(dropped) + " more bytes dropped]\n";
  if (ending.timed_out) report += "\n[grader class: timed out after " + duration_text(run.time_limit) + "]\n";
  write_text_file((out / "report.txt").string(), report);
  if (pid > 0) judge(ending, report, run, row);
  row.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return row;
}

}  // namespace grader
