// stage_process.h: runs a real stage server for a test, and a small client for its contract.
//
//   StageProcess server("stage1_naive");           // --port 0, a fresh database, --lab-controls
//   LabClient admin = server.admin();
//   auto alice = admin.create_client("alice");
//   auto from = admin.create_account(alice.id, 10'000);
//   auto res = alice.transfer(from, to, 1'500, "k1");   // POST /transfers with Idempotency-Key: "k1"
//   server.wait_for_exit();  server.restart();      // after a Lab-Crash, on the same database file
// (tests/e2e/world.h builds this start, and the scenarios tests share, once.)
#pragma once

#include <httplib.h>
#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"

namespace lab::testing {

struct Reply {
  int status = 0;   // 0: no response (connection failed or dropped)
  std::string body;
  httplib::Headers headers;
  nlohmann::json json() const { return nlohmann::json::parse(body); }
  std::string header(const std::string& name) const;
};

// The body of a transfer of amount (minor units, USD) from one account to another, as the tests send it.
std::string transfer_body(std::int64_t from, std::int64_t to, std::int64_t amount, const std::string& memo = "test");

// headers plus Idempotency-Key: key as an RFC 8941 sf-string ("\"k1\""); an empty key adds nothing.
httplib::Headers with_idempotency_key(const std::string& key, httplib::Headers headers = {});

class LabClient {
 public:
  LabClient(int port, std::string token) : port_(port), token_(std::move(token)) {}
  std::int64_t id = 0;   // the client id, for client tokens
  const std::string& token() const { return token_; }

  Reply post(const std::string& path, const std::string& body, const httplib::Headers& headers = {},
             const std::string& content_type = "application/json") const;
  Reply get(const std::string& path) const;

  // Admin helpers (for an admin client).
  LabClient create_client(const std::string& name) const;
  std::int64_t create_account(std::int64_t client_id, std::int64_t balance, const std::string& currency = "USD") const;
  std::vector<nlohmann::json> ledger() const;
  std::int64_t advance_clock_ms(std::int64_t ms) const;

  // Client helpers.
  std::int64_t balance(std::int64_t account) const;
  Reply transfer(std::int64_t from, std::int64_t to, std::int64_t amount, const std::string& key,
                 const httplib::Headers& extra = {}) const;

 private:
  int port_;
  std::string token_;
};

// How a StageProcess is started; the defaults are what every test wants.
struct StartOptions {
  bool admin_token_flag = true;     // pass --admin-token kAdminToken (false: the test supplies it otherwise)
  bool log_to_file = false;         // no --quiet, and stderr goes to a file (StageProcess::stderr_text())
  std::vector<std::string> env;     // extra "NAME=value" entries for the server's environment
};

class StageProcess {
 public:
  explicit StageProcess(std::string binary, std::vector<std::string> extra_args = {}, StartOptions options = {});
  ~StageProcess();
  StageProcess(const StageProcess&) = delete;
  StageProcess& operator=(const StageProcess&) = delete;

  int port() const { return port_; }
  LabClient admin() const { return LabClient(port_, kAdminToken); }
  // The server's --db: a file in the test's folder, or with LAB_TEST_POSTGRES=<socket dir> set, a fresh
  // PostgreSQL database of that cluster (tests/postgres/CMakeLists.txt runs stage 6's tests so).
  const std::string& db_path() const { return database_; }
  bool on_postgres() const;

  // Rows in the server's idempotency_keys table, read from its database (-1 if there is no table).
  std::int64_t key_rows() const;
  // Waits (up to 10 s) until the key table holds `rows` rows: a request has claimed its key. Tests use it
  // instead of a fixed sleep, so a slow machine cannot send the repeat before the first request claimed.
  void wait_for_key_rows(std::int64_t rows) const;

  int wait_for_exit();   // the exit status (e.g. 86 after Lab-Crash); -1 if it did not end within 10 s
  void restart();        // the same binary on the same database file
  void stop();           // SIGTERM, then wait
  // Sends signal_number and returns the exit status as wait_for_exit() does (-1: still running after 10 s,
  // then SIGKILLed).
  int signal_and_wait(int signal_number);
  // What the server wrote on stderr so far (StartOptions::log_to_file only).
  std::string stderr_text() const;

  static constexpr const char* kAdminToken = "test-admin-token";

 private:
  void start();
  std::string binary_;
  std::vector<std::string> extra_args_;
  StartOptions options_;
  TempDir dir_;
  std::string database_;
  pid_t pid_ = -1;
  int port_ = 0;
};

std::string binary_path(const std::string& name);   // <build>/stages/<name>
// Every stage server and wrong turn this copy builds, in stages/stage_servers.json's order (its one list;
// tests/CMakeLists.txt passes the build's copy of it in).
std::vector<std::string> built_stage_servers();

// Runs a command to its end (killed after timeout_ms) and returns its exit status (-1: killed at the
// timeout) and its stderr. For servers that must refuse to start.
struct Finished {
  int status = -1;
  std::string stderr_text;
};
Finished run_to_exit(const std::vector<std::string>& args, int timeout_ms);

}  // namespace lab::testing
