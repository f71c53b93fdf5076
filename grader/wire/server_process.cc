// server_process.cc: see server_process.h.
#include "grader/wire/server_process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/rand.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
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

// servers_die_with_their_starting_thread(): set once by the playground's main, read by spawn().
std::atomic<bool> die_with_starting_thread{false};

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
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

void servers_die_with_their_starting_thread() { die_with_starting_thread = true; }

void kill_servers_on_signal() {
  // SIGPIPE too: `grader ... | head` ends the grader when head exits, and its servers must end with it.
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(s, kill_groups_and_exit);
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

ServerProcess::ServerProcess(std::string command_template) : template_(std::move(command_template)) {
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
  std::string cmd = command();
  std::string out_path = dir_ + "/server.stdout", err_path = dir_ + "/server.stderr";
  const bool tie_to_this_thread = die_with_starting_thread;
  const pid_t starter = ::getpid();  // before the fork: the child compares its parent with it
  pid_t pid = ::fork();
  if (pid < 0) throw StartError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (tie_to_this_thread) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      // Did the starter end between fork and prctl? Then no death signal will come: the child is already
      // an orphan, adopted by another process.
      if (::getppid() != starter) _exit(127);
    }
    // The child: its own process group, so a SIGKILL reaches the server and anything it started.
    ::setpgid(0, 0);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int null_in = ::open("/dev/null", O_RDONLY);
    if (out >= 0) ::dup2(out, STDOUT_FILENO);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ::setpgid(pid, pid);  // also in the parent: whichever runs first, the group exists before any kill
  pid_ = pid;
  remember_group(pid_, true);
}

bool ServerProcess::alive() {
  if (pid_ < 0) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  if (r == pid_) last_exit_ = describe_status(status);
  // The shell ended; anything it left behind in the group goes too.
  ::kill(-pid_, SIGKILL);
  remember_group(pid_, false);
  pid_ = -1;
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
  while (std::chrono::steady_clock::now() < deadline) {
    if (!alive()) {
      *why = "the server ended before it answered GET /healthz (" + last_exit_ + ")";
      return false;
    }
    std::string error;
    // One quick connection attempt per poll: the process may still be starting.
    if (auto c = Connection::open_patiently(address_, std::chrono::milliseconds(0), &error)) {
      if (c->send_all(health.to_wire(address_), &error))
        if (auto res = c->read_response(kHealthRequestTimeout, &error); res && res->status == 200) return true;
    }
    std::this_thread::sleep_for(kHealthPoll);
  }
  *why = "GET /healthz did not answer 200 within " + std::to_string(kStartupTimeout.count() / 1000) + " s";
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
    const bool raced = !alive() && attempt < kPortRaceRetries && port_taken(address_.port);
    stop();
    if (raced) continue;
    throw StartError("could not start the server.\n  command: " + command() + "\n  " + why +
                     "\n  its stderr (last lines):\n" + stderr_tail());
  }
}

void ServerProcess::restart() {
  if (alive()) stop();
  start();
}

void ServerProcess::kill_group() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
}

void ServerProcess::stop() {
  if (!alive()) return;
  ::kill(-pid_, SIGTERM);
  if (!wait_for_exit(kStopGrace)) {
    ::kill(-pid_, SIGKILL);
    wait_for_exit(kExitWait);
  }
}

std::string ServerProcess::stderr_tail(std::size_t max_bytes) const {
  std::ifstream in(dir_ + "/server.stderr", std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  if (text.size() > max_bytes) text = "...\n" + text.substr(text.size() - max_bytes);
  if (text.empty()) text = "(empty)";
  std::string indented;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) indented += "    | " + line + "\n";
  return indented;
}

}  // namespace grader
