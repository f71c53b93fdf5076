// server_process.h: starts, restarts and stops the server under test. LAB.md "The grader".
//
// The server is any program (any language) started from a command line with placeholders:
//   ServerProcess server("build/stages/stage1_naive --port {port} --db {db} --admin-token {admin_token}");
//   server.start();              // picks a free port, runs /bin/sh -c in its own process group,
//                                // waits for GET /healthz; throws StartError with the server's stderr
//   server.restart();            // after a crash: same database, new port
//   server.kill_group();         // a real SIGKILL of the whole group (the crash the lab cannot fake)
//   server.stop();               // SIGTERM, then SIGKILL after kStopGrace; also in the destructor
//
// The database lives in a fresh temporary folder, removed at the end. A server that keeps its data in a
// database server (PostgreSQL) takes {db_name} instead of {db}: a name derived from that folder's path (the
// grader never drops that database; the lab's cluster is a throwaway one, scripts/pg-cluster.sh).
// Thread safety: one owner thread; address() may be read while requests run (it changes only in
// start/restart, when none run).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "grader/wire/wire.h"

namespace grader {

// Time a server may take from exec to answering /healthz (a JVM or a cold interpreter is slow).
constexpr std::chrono::milliseconds kStartupTimeout{20'000};
// Time SIGTERM gets to end the group before SIGKILL.
constexpr std::chrono::milliseconds kStopGrace{3'000};
// Time a Lab-Crash or SIGKILL may take to end the process before the grader calls it hung.
constexpr std::chrono::milliseconds kExitWait{5'000};

struct StartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ServerProcess {
 public:
  explicit ServerProcess(std::string command_template);
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
  pid_t process_group() const { return pid_; }  // -1 when not running; `grader load` reads its memory

  Address address() const { return address_; }
  const std::string& admin_token() const { return admin_token_; }
  std::string command() const;  // the template with placeholders filled, as last run
  const std::string& database_path() const { return db_path_; }  // what {db} is filled with (even if unused)
  std::string stderr_tail(std::size_t max_bytes = 4000) const;

 private:
  void spawn();
  bool wait_healthy(std::string* why);

  const std::string template_;  // constant after construction
  std::string dir_;             // the temporary folder: the database and the server's output
  std::string db_path_;
  std::string admin_token_;
  Address address_;
  pid_t pid_ = -1;  // also the process group id; -1 when not running
  std::string last_exit_;
};

// On SIGINT, SIGTERM, SIGHUP or SIGPIPE the grader kills every server group it started, then exits: the
// servers run in their own process groups, so a Ctrl-C at the terminal would not reach them. (Their
// temporary folder stays behind in that case: a signal handler may not remove files.)
void kill_servers_on_signal();

// For the playground: every server started from now on is killed (SIGKILL) when the thread that started it
// ends, and so when its process ends, however it ends: SIGKILL included (Linux's PR_SET_PDEATHSIG, set in
// the child between fork and exec; it outlives exec). It fires on the end of the starting *thread*, so that
// thread must live as long as its servers: in the playground each session's teller thread starts, restarts
// and stops its server, and ends after it (playground/session.cc). The grader does not call it: its servers
// may outlive the thread that started them, and kill_servers_on_signal covers the signals it can catch.
// The server must be the child itself, so such a command starts with `exec`: `sh -c` forks a plain
// command, and a grandchild does not inherit the death signal.
void servers_die_with_their_starting_thread();

// Fills {port}, {db}, {db_name} and {admin_token} (exposed for the unit tests).
std::string fill_placeholders(std::string command, int port, const std::string& db, const std::string& admin_token);
// What {db_name} is filled with: "lab_" and 16 lower-case hex digits of the FNV-1a 64 hash of the {db} path.
// A valid PostgreSQL database name (letters, digits, _; 20 of the 63 bytes allowed) that needs no quoting;
// the same across restarts of one server (same path), another for each fresh one (its own temporary folder).
std::string database_name_for(const std::string& db_path);
// A port that was free a moment ago (bind to port 0, read it, close).
int pick_free_port();

}  // namespace grader
