// server_process.cc: see server_process.h.
#include "grader/wire/server_process.h"

#include "grader/base/process_memory.h"
#include "grader/wire/port_owner.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/rand.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <limits>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace grader {
namespace {

constexpr std::chrono::milliseconds kHealthPoll{20};
constexpr std::chrono::milliseconds kHealthRequestTimeout{2'000};

std::string random_hex(std::size_t bytes) {
  std::string out;
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) throw std::runtime_error("RAND_bytes failed");
  for (unsigned char b : raw) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

// The live server groups, for the signal handler. Atomics of int are lock-free, so the handler may read them.
constexpr int kMaxGroups = 8;
std::atomic<int> live_groups[kMaxGroups];

void remember_group(pid_t pgid, bool live) {
  for (auto& slot : live_groups) {
    int expected = live ? 0 : pgid;
    if (slot.compare_exchange_strong(expected, live ? pgid : 0)) return;
  }
}

extern "C" void kill_groups_and_exit(int signal_number) {
  for (auto& slot : live_groups)
    if (int pgid = slot.load(); pgid > 0) ::kill(-pgid, SIGKILL);
  _exit(128 + signal_number);
}

std::string describe_status(int status, const KernelLimits& limits) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (!WIFSIGNALED(status)) return "status " + std::to_string(status);
  const int s = WTERMSIG(status);
  std::string out = "signal " + std::to_string(s);
  if (s == SIGXFSZ) out += " (SIGXFSZ: it wrote a file over its limit of " + std::to_string(limits.file_mib) + " MiB)";
  if (s == SIGXCPU) out += " (SIGXCPU: a process over its limit of " + std::to_string(limits.cpu_seconds) + " s of CPU)";
  return out;
}

// The bytes of the files under `folder`, counting at most kFolderEntriesMost entries (a server that makes
// more files than that is over the limit in spirit: it is counted as over).
constexpr std::size_t kFolderEntriesMost = 10'000;
std::int64_t folder_bytes(const std::string& folder) {
  std::int64_t total = 0;
  std::size_t entries = 0;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (++entries > kFolderEntriesMost) return std::numeric_limits<std::int64_t>::max();
    std::error_code size_error;
    if (it->is_regular_file(size_error)) {
      const auto size = it->file_size(size_error);
      if (!size_error) total += static_cast<std::int64_t>(size);
    }
  }
  return total;
}

}  // namespace

std::string database_name_for(const std::string& db_path) {
  // FNV-1a 64: short, stable across runs and machines (std::hash is neither promised), and a temporary
  // folder's random name already makes the paths differ; nothing here needs a cryptographic hash.
  constexpr std::uint64_t kOffsetBasis = 14'695'981'039'346'656'037ULL;
  constexpr std::uint64_t kPrime = 1'099'511'628'211ULL;
  std::uint64_t hash = kOffsetBasis;
  for (unsigned char c : db_path) hash = (hash ^ c) * kPrime;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "lab_";
  for (int shift = 60; shift >= 0; shift -= 4) name += kHex[(hash >> shift) & 0xf];
  return name;
}

std::string fill_placeholders(std::string command, int port, const std::string& db, const std::string& admin_token) {
  const std::pair<std::string, std::string> fills[] = {{"{port}", std::to_string(port)},
                                                       {"{db}", db},
                                                       {"{db_name}", database_name_for(db)},
                                                       {"{admin_token}", admin_token}};
  for (const auto& [name, value] : fills)
    for (auto at = command.find(name); at != std::string::npos; at = command.find(name, at + value.size()))
      command.replace(at, name.size(), value);
  return command;
}

void kill_servers_on_signal() {
  // Every signal whose default is to end the process, but the crashes (SIGSEGV, SIGABRT, ...: the sanitizers
  // own those). SIGPIPE too: `grader ... | head` ends the grader when head exits, and its servers must end with it.
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
                SIGXFSZ})
    ::signal(s, kill_groups_and_exit);
}

int pick_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

ServerProcess::ServerProcess(std::string command_template, ServerLimits limits)
    : template_(std::move(command_template)), limits_(limits) {
  std::string pattern = (std::filesystem::temp_directory_path() / "grader-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  db_path_ = dir_ + "/lab.db";
  admin_token_ = "adm_grader_" + random_hex(12);
}

ServerProcess::~ServerProcess() {
  stop();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string ServerProcess::command() const {
  return fill_placeholders(template_, address_.port, db_path_, admin_token_);
}

void ServerProcess::spawn() {
  address_ = Address{"127.0.0.1", pick_free_port()};
  {
    std::lock_guard lock(limit_mutex_);
    limit_hit_.clear();
  }
  std::string out_path = dir_ + "/server.stdout", err_path = dir_ + "/server.stderr";
  const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  try {
    std::vector<std::string> wrapper;
    if (limits_.sandbox.enabled)
      wrapper = bwrap_command({.work_dir = std::filesystem::current_path().string(),
                               .own_dir = dir_,
                               .hidden = limits_.sandbox.hidden,
                               .memory_folder_mib = limits_.folder_mib});
    kept_ = start_kept({.shell_command = command(),
                        .wrapper = wrapper,
                        .stdout_fd = out,
                        .stderr_fd = err,
                        .limits = limits_.kernel});
  } catch (const std::exception& e) {
    if (out >= 0) ::close(out);
    if (err >= 0) ::close(err);
    throw StartError(e.what());
  }
  if (out >= 0) ::close(out);
  if (err >= 0) ::close(err);
  remember_group(kept_.server_group, true);
  watch_ = std::jthread([this, kept = kept_](std::stop_token stop) { watch_limits(stop, kept); });
}

void ServerProcess::ended_for(std::string what) {
  std::lock_guard lock(limit_mutex_);
  if (limit_hit_.empty()) limit_hit_ = std::move(what);
}

std::string ServerProcess::limit_hit() const {
  std::lock_guard lock(limit_mutex_);
  return limit_hit_;
}

void ServerProcess::watch_limits(std::stop_token stop, KeptProcess kept) {
  std::mutex mutex;
  std::condition_variable_any wake;
  std::unique_lock lock(mutex);
  for (;;) {
    wake.wait_for(lock, stop, kLimitWatchEvery, [] { return false; });  // woken early by stop only
    if (stop.stop_requested()) return;
    const TreeFigures tree = tree_figures(kept.keeper);
    const std::int64_t folder_mib = folder_bytes(dir_) >> 20;
    std::string over;
    if (tree.resident_kib / 1024 > limits_.memory_mib)
      over = "it held " + std::to_string(tree.resident_kib / 1024) + " MiB of memory; its limit is " +
             std::to_string(limits_.memory_mib) + " MiB (--server-memory-mib)";
    else if (tree.processes > limits_.processes)
      over = "it ran " + std::to_string(tree.processes) + " processes; its limit is " +
             std::to_string(limits_.processes);
    else if (folder_mib > limits_.folder_mib)
      over = "its folder held " + std::to_string(folder_mib) + " MiB; its limit is " +
             std::to_string(limits_.folder_mib) + " MiB";
    if (over.empty()) continue;
    ended_for(over);
    ::kill(-kept.server_group, SIGKILL);
    end_kept(kept);
    return;
  }
}

bool ServerProcess::alive() {
  if (kept_.keeper < 0) return false;
  // Look without reaping first: the watch must stop while the keeper's pid still names the keeper.
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(kept_.keeper), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0)
    return true;
  watch_ = {};  // stops and joins
  int status = 0;
  if (::waitpid(kept_.keeper, &status, 0) == kept_.keeper) {
    last_exit_ = describe_status(status, limits_.kernel);
    if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXFSZ || WTERMSIG(status) == SIGXCPU)) ended_for(last_exit_);
  }
  // The keeper ended the tree before it exited; the group kill is for a keeper the server itself killed.
  ::kill(-kept_.server_group, SIGKILL);
  remember_group(kept_.server_group, false);
  release_kept(kept_);
  return false;
}

bool ServerProcess::wait_for_exit(std::chrono::milliseconds patience) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  while (alive()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

bool ServerProcess::wait_healthy(std::string* why) {
  auto deadline = std::chrono::steady_clock::now() + kStartupTimeout;
  HttpRequest health{"GET", "/healthz", {}, ""};
  std::string last_answer;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!alive()) {
      // Ended by the grader's watch for going over a limit (a server slow to start, under a sanitizer or a
      // JVM's warm-up, may reach one before it answers): that is what ended it, not its own exit.
      if (const std::string over = limit_hit(); !over.empty()) {
        *why = "over-limit: the grader ended the server: " + over + " (before it answered GET /healthz)";
        return false;
      }
      *why = "the server ended before it answered GET /healthz (" + last_exit_ + ")";
      if (last_exit_ == "exit 0")
        *why += ": a server must stay in the foreground (one that daemonizes, forking and letting its first "
                "process exit, is ended with that process)";
      return false;
    }
    std::string error;
    // One quick connection attempt per poll: the process may still be starting.
    if (auto c = Connection::open_patiently(address_, std::chrono::milliseconds(0), &error)) {
      if (c->send_all(health.to_wire(address_), &error)) {
        auto res = c->read_response(kHealthRequestTimeout, &error);
        // Answered: by this server, or by another program that took its port first (port_owner.h)?
        const bool stranger = res && res->status == 200 && port_owner(kept_.keeper, address_.port) == PortOwner::Another;
        if (res && res->status == 200 && !stranger) return true;
        if (stranger && alive()) {
          port_taken_by_another_ = true;
          *why = "GET /healthz on port " + std::to_string(address_.port) + " was answered by a process that is not "
                 "the server's: another program took the port first";
          return false;
        }
        // Something listens: what it answered is worth saying (a refusal before that is only a slow start).
        last_answer = res ? "it answered " + std::to_string(res->status) : error;
      }
    }
    std::this_thread::sleep_for(kHealthPoll);
  }
  *why = "GET /healthz did not answer 200 within " + std::to_string(kStartupTimeout.count() / 1000) + " s";
  if (!last_answer.empty()) *why += " (last: " + last_answer + ")";
  return false;
}

namespace {

// Whether another process listens on (or holds) the port now.
bool port_taken(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool taken = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno == EADDRINUSE;
  ::close(fd);
  return taken;
}

// Another process may take the free port between pick_free_port() and the server's own bind (several
// gradings at once on one machine): a server that ended at start-up while its port is taken by someone
// else is started again on another port, kPortRaceRetries times at most. Any other end is the verdict.
constexpr int kPortRaceRetries = 3;

}  // namespace

void ServerProcess::start() {
  for (int attempt = 0;; ++attempt) {
    spawn();
    std::string why;
    if (wait_healthy(&why)) return;
    // A server ended for a limit is never a port race, whatever its port shows now (a connection the grader
    // had opened to it may hold the port in TIME_WAIT): another start would clear limit_hit() and go over again.
    const bool raced = attempt < kPortRaceRetries && limit_hit().empty() &&
                       (port_taken_by_another_ || (!alive() && port_taken(address_.port)));
    port_taken_by_another_ = false;
    stop();
    if (raced) continue;
    if (limits_.sandbox.enabled)
      why += "\n  (under --sandbox it sees only the system, its working folder and its temporary folder: a program "
             "under the home folder, under /tmp or beside the working folder is hidden; docs/teach/grader-for-courses.md \"Untrusted servers\")";
    throw StartError("could not start the server.\n  command: " + command() + "\n  " + why +
                     "\n  its stderr (last lines):\n" + stderr_tail());
  }
}

void ServerProcess::restart() {
  if (alive()) stop();
  start();
}

void ServerProcess::kill_group() {
  if (kept_.server_group > 0) ::kill(-kept_.server_group, SIGKILL);
}

void ServerProcess::stop() {
  if (!alive()) return;
  ::kill(-kept_.server_group, SIGTERM);
  if (!wait_for_exit(kStopGrace)) {
    ::kill(-kept_.server_group, SIGKILL);
    end_kept(kept_);
    if (!wait_for_exit(kExitWait)) ::kill(kept_.keeper, SIGKILL), wait_for_exit(kExitWait);
  }
}

std::string ServerProcess::stderr_tail(std::size_t max_bytes) const {
  // Only the tail is read: a server may have written gigabytes (up to its file limit).
  std::ifstream in(dir_ + "/server.stderr", std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  const std::streamoff from = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(max_bytes));
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.seekg(from);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  if (from > 0) text = "...\n" + text;
  if (text.empty()) text = "(empty)";
  std::string indented;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) indented += "    | " + line + "\n";
  return indented;
}

}  // namespace grader
