// target.h: the server being graded, started by the grader (--server) or already running (--url).
// docs/teach/grader.md "The grader".
//
//   std::unique_ptr<Target> target = Target::launch(command, facts);  // or Target::attach(addresses, token, facts)
//   target->address();              // where to send the next request (changes when restarted)
//   target->can_restart();          // false for --url: crash checks are skipped
//   target->restart_after_crash();  // waits for the process to end, starts it again (same database)
//   target->sigkill();              // SIGKILL of the process group, then nothing: call restart_after_crash
//   auto own = target->launch_sibling({.lease_seconds = 1, .key_ttl_seconds = 86'400});
//                                   // a second server, same command, fresh database, --lease 1 --key-ttl 86400
//   target->stop();                 // SIGTERM, then SIGKILL; nothing for --url
//   target->limit_hit();            // "" or the limit the server went over (server_process.h ServerLimits)
//
// Several instances: `--url http://127.0.0.1:A,http://127.0.0.1:B` names processes that serve one server from
// one shared database (stage 6 on PostgreSQL). address() hands them out in turn, so each request goes to the
// next instance: no check may rely on two requests reaching the same process, as no client behind a load
// balancer could.
//
// Thread safety: address() may be called from burst threads; restarts happen only between bursts.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "grader/wire/server_process.h"
#include "grader/wire/wire.h"

namespace grader {

// What the grader assumes about the server's configuration (docs/reference/http-contract.md "The process").
struct ServerFacts {
  std::int64_t lease_seconds = 30;        // --lease default
  std::int64_t key_ttl_seconds = 86'400;  // --key-ttl default
};

// Reads "--lease N" and "--key-ttl N" from a server command line, if present.
ServerFacts facts_from_command(const std::string& command);
// The command with its own --lease and --key-ttl (if any) replaced by these values, appended at the end.
std::string command_with_facts(const std::string& command, const ServerFacts& facts);

// The addresses in --url: one URL, or several separated by commas (the instances of one server), each like
// http://127.0.0.1:8080 ("http://" may be left out; a trailing "/" is allowed). Returns them in order, or
// what is wrong, for a usage error.
std::variant<std::vector<Address>, std::string> parse_urls(const std::string& list);

class Target {
 public:
  static std::unique_ptr<Target> launch(const std::string& command_template, ServerFacts facts,
                                        ServerLimits limits = {});
  // Instances of one server (at least one address), all with this admin token.
  static std::unique_ptr<Target> attach(std::vector<Address> addresses, std::string admin_token, ServerFacts facts);

  Address address() const;  // the next instance, round-robin; the one process with --server
  const std::string& admin_token() const { return admin_token_; }
  const ServerFacts& facts() const { return facts_; }
  bool can_restart() const { return process_ != nullptr; }
  pid_t process_group() const { return process_ ? process_->process_group() : -1; }  // -1 with --url
  // Another server from the same command, on a fresh database, with these --lease and --key-ttl. Throws
  // StartError; needs can_restart().
  std::unique_ptr<Target> launch_sibling(const ServerFacts& facts) const;
  std::string describe() const;  // the command line, or every URL
  // The file {db} names; "" with --url (the grader cannot know it) and for a command that uses {db_name}
  // without {db} (a PostgreSQL database: there is no file).
  std::string database_path() const;
  std::string stderr_tail() const;
  std::string limit_hit() const;  // ServerProcess::limit_hit; "" with --url

  bool alive();  // --url: always true
  // Waits for the process to end (it was told to crash), then starts it again. Throws StartError.
  void restart_after_crash();
  void sigkill();
  void stop();

 private:
  Target() = default;
  std::unique_ptr<ServerProcess> process_;  // null with --url
  std::string command_template_;            // empty with --url
  mutable std::mutex mutex_;
  std::vector<Address> addresses_;  // guarded by mutex_: never empty; one with --server, replaced on restart
  mutable std::size_t next_ = 0;    // guarded by mutex_: the index address() hands out next
  std::string admin_token_;
  ServerFacts facts_;
};

}  // namespace grader
