// stage_process.cc: see stage_process.h.
#include "tests/e2e/stage_process.h"

#include <fcntl.h>
#include <signal.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "common/db.h"

namespace lab::testing {

// LAB_STAGES_DIR (optional) runs the tests against another build's servers, e.g. to see a new regression test
// fail on the servers built before its fix: LAB_STAGES_DIR=/path/to/old/build/stages build/tests/e2e_tests
std::string binary_path(const std::string& name) {
  const char* stages_dir = std::getenv("LAB_STAGES_DIR");
  return (stages_dir ? std::string(stages_dir) : std::string(LAB_BINARY_DIR) + "/stages") + "/" + name;
}

std::vector<std::string> built_stage_servers() {
  std::vector<std::string> names;
  std::string_view list = LAB_BUILT_STAGE_SERVERS;
  for (std::size_t start = 0; start <= list.size();) {
    std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) names.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

std::string Reply::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

std::string transfer_body(std::int64_t from, std::int64_t to, std::int64_t amount, const std::string& memo) {
  return nlohmann::json{{"from_account", from}, {"to_account", to}, {"amount", amount}, {"currency", "USD"},
                        {"memo", memo}}.dump();
}

httplib::Headers with_idempotency_key(const std::string& key, httplib::Headers headers) {
  if (!key.empty()) headers.emplace("Idempotency-Key", "\"" + key + "\"");
  return headers;
}

namespace {

Reply to_reply(const httplib::Result& result) {
  if (!result) return Reply{};
  return Reply{result->status, result->body, result->headers};
}

httplib::Client make_client(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30, 0);
  return client;
}

}  // namespace

Reply LabClient::post(const std::string& path, const std::string& body, const httplib::Headers& headers,
                      const std::string& content_type) const {
  auto client = make_client(port_);
  httplib::Headers all = headers;
  all.emplace("Authorization", "Bearer " + token_);
  return to_reply(client.Post(path.c_str(), all, body, content_type.c_str()));
}

Reply LabClient::get(const std::string& path) const {
  auto client = make_client(port_);
  return to_reply(client.Get(path.c_str(), httplib::Headers{{"Authorization", "Bearer " + token_}}));
}

LabClient LabClient::create_client(const std::string& name) const {
  auto reply = post("/admin/clients", nlohmann::json{{"name", name}}.dump());
  if (reply.status != 201) throw std::runtime_error("POST /admin/clients: " + std::to_string(reply.status));
  LabClient client(port_, reply.json()["token"].get<std::string>());
  client.id = reply.json()["id"].get<std::int64_t>();
  return client;
}

std::int64_t LabClient::create_account(std::int64_t client_id, std::int64_t balance, const std::string& currency) const {
  auto reply = post("/admin/accounts", nlohmann::json{{"client_id", client_id}, {"balance", balance}, {"currency", currency}}.dump());
  if (reply.status != 201) throw std::runtime_error("POST /admin/accounts: " + std::to_string(reply.status));
  return reply.json()["id"].get<std::int64_t>();
}

std::vector<nlohmann::json> LabClient::ledger() const {
  std::vector<nlohmann::json> entries;
  std::int64_t after = 0;
  for (;;) {
    auto page = get("/admin/ledger?after=" + std::to_string(after) + "&limit=1000").json();
    for (auto& e : page["entries"]) entries.push_back(e);
    if (page["next"].is_null()) return entries;
    after = page["next"].get<std::int64_t>();
  }
}

std::int64_t LabClient::advance_clock_ms(std::int64_t ms) const {
  auto reply = post("/admin/clock", nlohmann::json{{"advance_ms", ms}}.dump());
  if (reply.status != 200) throw std::runtime_error("POST /admin/clock: " + std::to_string(reply.status));
  return reply.json()["now_ms"].get<std::int64_t>();
}

std::int64_t LabClient::balance(std::int64_t account) const {
  auto reply = get("/accounts/" + std::to_string(account));
  if (reply.status != 200) throw std::runtime_error("GET /accounts: " + std::to_string(reply.status));
  return reply.json()["balance"].get<std::int64_t>();
}

Reply LabClient::transfer(std::int64_t from, std::int64_t to, std::int64_t amount, const std::string& key,
                          const httplib::Headers& extra) const {
  return post("/transfers", transfer_body(from, to, amount), with_idempotency_key(key, extra));
}

// ---------------------------------------------------------------- StageProcess

namespace {
// LAB_TEST_POSTGRES=<socket dir of a running cluster>: every server of this test run gets its own new
// database there (created by the server itself, as a missing SQLite file would be).
std::string postgres_database_for_this_server() {
  const char* socket_dir = std::getenv("LAB_TEST_POSTGRES");
  if (!socket_dir || !*socket_dir) return "";
  static std::atomic<int> servers{0};
  return "postgresql:///lab_e2e_" + std::to_string(::getpid()) + "_" + std::to_string(++servers) +
         "?host=" + socket_dir + "&user=lab";
}
}  // namespace

StageProcess::StageProcess(std::string binary, std::vector<std::string> extra_args, StartOptions options)
    : binary_(binary_path(binary)), extra_args_(std::move(extra_args)), options_(std::move(options)) {
  database_ = postgres_database_for_this_server();
  if (database_.empty()) database_ = dir_.file("lab.db");
  start();
}

bool StageProcess::on_postgres() const { return lab::Database::is_postgres_uri(database_); }

StageProcess::~StageProcess() { stop(); }

void StageProcess::start() {
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  // A restart takes the same port again, so the test's clients keep working.
  std::vector<std::string> args = {binary_, "--port", std::to_string(port_), "--db", db_path(), "--lab-controls"};
  if (options_.admin_token_flag) args.insert(args.end(), {"--admin-token", kAdminToken});
  if (!options_.log_to_file) args.push_back("--quiet");
  args.insert(args.end(), extra_args_.begin(), extra_args_.end());
  std::string stderr_file = dir_.file("stderr.log");
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    if (options_.log_to_file) {
      int err = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      if (err >= 0) dup2(err, STDERR_FILENO);
    }
    // The server's own stop signals as a fresh process would have them: a test run from a background job
    // inherits SIGINT ignored, and an ignored signal never reaches the server's sigwait.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (auto& e : options_.env) putenv(e.data());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::perror("execv");
    _exit(127);
  }
  close(out[1]);
  // Read the "listening on http://127.0.0.1:PORT" line: the server is ready when it is printed.
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  close(out[0]);
  auto colon = line.rfind(':');
  if (line.rfind("listening on ", 0) != 0 || colon == std::string::npos)
    throw std::runtime_error(binary_ + " did not start: '" + line + "'");
  port_ = std::stoi(line.substr(colon + 1));
}

std::int64_t StageProcess::key_rows() const {
  if (on_postgres()) {
    PGconn* conn = PQconnectdb(database_.c_str());
    std::int64_t rows = -1;
    if (PQstatus(conn) == CONNECTION_OK) {
      PGresult* result = PQexec(conn, "SELECT COUNT(*) FROM idempotency_keys");
      if (PQresultStatus(result) == PGRES_TUPLES_OK) rows = std::stoll(PQgetvalue(result, 0, 0));
      PQclear(result);
    }
    PQfinish(conn);
    return rows;
  }
  sqlite3* db = nullptr;
  std::int64_t rows = -1;
  if (sqlite3_open_v2(db_path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 1000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM idempotency_keys", -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
      rows = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return rows;
}

void StageProcess::wait_for_key_rows(std::int64_t rows) const {
  for (int i = 0; i < 1000; ++i) {
    if (key_rows() >= rows) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw std::runtime_error("no request claimed its key within 10 s");
}

int StageProcess::wait_for_exit() {
  for (int i = 0; i < 1000 && pid_ > 0; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

void StageProcess::restart() {
  stop();
  start();
}

int StageProcess::signal_and_wait(int signal_number) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal_number);
  int status = wait_for_exit();
  if (status == -1) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  return status;
}

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
}  // namespace

std::string StageProcess::stderr_text() const { return read_file(dir_.file("stderr.log")); }

Finished run_to_exit(const std::vector<std::string>& args, int timeout_ms) {
  TempDir dir;
  std::string stderr_file = dir.file("stderr.log");
  pid_t pid = fork();
  if (pid == 0) {
    int err = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (err >= 0) dup2(err, STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::perror("execv");
    _exit(127);
  }
  Finished finished;
  for (int waited = 0;; waited += 10) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      finished.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (waited >= timeout_ms) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  finished.stderr_text = read_file(stderr_file);
  return finished;
}

void StageProcess::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  if (wait_for_exit() == -1) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

}  // namespace lab::testing
