// server_process.h: starts, restarts and stops the server under test. docs/teach/grader.md "The grader".
//
// The server is any program (any language) started from a command line with placeholders:
//   ServerProcess server("build/stages/stage1_naive --port {port} --db {db} --admin-token {admin_token}");
//   server.start();              // picks a free port, runs /bin/sh -c in its own process group under a
//                                // keeper (process_keeper.h), waits for GET /healthz; throws StartError
//                                // with the server's stderr
//   server.restart();            // after a crash: same database, new port
//   server.kill_group();         // a real SIGKILL of the whole group (the crash the lab cannot fake)
//   server.stop();               // SIGTERM, then SIGKILL after kStopGrace; also in the destructor
//
// The database lives in a fresh temporary folder, removed at the end. A server that keeps its data in a
// database server (PostgreSQL) takes {db_name} instead of {db}: a name derived from that folder's path (the
// grader never drops that database; the lab's cluster is a throwaway one, scripts/pg-cluster.sh).
// A submission is code nobody reviewed: whatever it starts ends with it (process_keeper.h), and it runs under
// ServerLimits; a server over one is ended and limit_hit() says which (every bound: docs/teach/grader-for-courses.md "Untrusted servers").
// Under --sandbox (ServerLimits::sandbox) its shell runs in bubblewrap, which shows it the system read-only,
// the working folder read-only and its temporary folder, and hides the rest (sandbox.h).
// Thread safety: one owner thread; address() may be read while requests run (it changes only in
// start/restart, when none run).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "grader/wire/process_keeper.h"
#include "grader/wire/sandbox.h"
#include "grader/wire/wire.h"

namespace grader {

// Time a server may take from exec to answering /healthz (a JVM or a cold interpreter is slow).
constexpr std::chrono::milliseconds kStartupTimeout{20'000};
// Time SIGTERM gets to end the group before SIGKILL.
constexpr std::chrono::milliseconds kStopGrace{3'000};
// Time a Lab-Crash or SIGKILL may take to end the process before the grader calls it hung.
constexpr std::chrono::milliseconds kExitWait{5'000};

// The limits every server runs under. The kernel enforces `kernel` (file size, CPU time); the grader's watch
// the rest, sampled every kLimitWatchEvery: the server is ended at the first sample over one.
struct ServerLimits {
  std::int64_t memory_mib = 2048;  // VmRSS of the whole tree (an address-space limit would break runtimes
                                   // that reserve more than they use: the JVM, Go, V8)
  std::int64_t processes = 256;    // processes in the tree (RLIMIT_NPROC counts the whole user's instead)
  std::int64_t folder_mib = 512;   // the temporary folder: its database and its output
  KernelLimits kernel;
  SandboxSettings sandbox;  // --sandbox: what it sees (sandbox.h); off by default
};
constexpr std::chrono::milliseconds kLimitWatchEvery{250};
// The most of a server's stderr the grader ever reads (the tail it shows), whatever the file's size.
constexpr std::size_t kStderrTailBytes = 4000;

struct StartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ServerProcess {
 public:
  explicit ServerProcess(std::string command_template, ServerLimits limits = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  void start();
  void restart();
  void stop();
  void kill_group();
  bool alive();  // reaps the process if it has ended
  bool wait_for_exit(std::chrono::milliseconds patience);
  std::string last_exit() const { return last_exit_; }  // "exit 86", "signal 9", ...
  pid_t process_group() const { return kept_.server_group; }  // -1 when not running; `grader load` reads it

  Address address() const { return address_; }
  const std::string& admin_token() const { return admin_token_; }
  std::string command() const;  // the template with placeholders filled, as last run
  const std::string& database_path() const { return db_path_; }  // what {db} is filled with (even if unused)
  std::string stderr_tail(std::size_t max_bytes = kStderrTailBytes) const;
  // What the server went over, if it was ended for it ("it held 2100 MiB of memory; its limit is 2048 MiB"),
  // or "". Stays set until the next start.
  std::string limit_hit() const;
  const ServerLimits& limits() const { return limits_; }

 private:
  void spawn();
  bool wait_healthy(std::string* why);
  bool port_taken_by_another_ = false;  // wait_healthy saw another program answer on the server's port
  void watch_limits(std::stop_token stop, KeptProcess kept);
  void ended_for(std::string what);

  const std::string template_;  // constant after construction
  std::string dir_;             // the temporary folder: the database and the server's output
  std::string db_path_;
  std::string admin_token_;
  Address address_;
  const ServerLimits limits_;
  KeptProcess kept_;  // keeper -1 when not running
  std::string last_exit_;
  mutable std::mutex limit_mutex_;
  std::string limit_hit_;  // guarded by limit_mutex_
  std::jthread watch_;     // watch_limits while the server runs
};

// On any signal that would end the grader (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, ...) it kills
// every server group it started, then exits: the servers run in their own process groups, so a Ctrl-C at the
// terminal would not reach them. (Their temporary folder stays behind in that case: a signal handler may not
// remove files.) A SIGKILL runs no handler: the keepers see the grader go and end the servers.
void kill_servers_on_signal();

// Fills {port}, {db}, {db_name} and {admin_token} (exposed for the unit tests).
std::string fill_placeholders(std::string command, int port, const std::string& db, const std::string& admin_token);
// What {db_name} is filled with: "lab_" and 16 lower-case hex digits of the FNV-1a 64 hash of the {db} path.
// A valid PostgreSQL database name (letters, digits, _; 20 of the 63 bytes allowed) that needs no quoting;
// the same across restarts of one server (same path), another for each fresh one (its own temporary folder).
std::string database_name_for(const std::string& db_path);
// A port that was free a moment ago (bind to port 0, read it, close).
int pick_free_port();

}  // namespace grader
