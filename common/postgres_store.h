// postgres_store.h: the lab's database on a PostgreSQL server, through libpq (db.h). docs/reference/beyond-one-process.md "Beyond one
// process".
//
//   Database db("postgresql:///lab?host=/tmp/labpg.x&user=lab");   // created if missing, tables too
//
// Why it exists: several instances of a server can share one PostgreSQL database, as real deployments do
// behind a load balancer. Nothing in a process then decides who wins: two instances' claims of one key meet
// only in the database, where the UNIQUE constraint refuses the second INSERT (SQLSTATE 23505, thrown as
// UniqueViolation like SQLite's).
//
// How it differs from the SQLite store, and why:
// - No process-wide write lock. Write transactions of all threads and instances run side by side at
//   READ COMMITTED; what must not change under a transaction is locked by the rows it writes or reads
//   FOR UPDATE (Connection::for_update), and accounts are locked in id order (bank.cc) so that two
//   transfers in opposite directions cannot deadlock.
// - A pool of at most kPoolSize connections per process: the HTTP server has 256 worker threads and
//   PostgreSQL allows 100 connections by default. A thread borrows one at its first statement and gives
//   it back when its request ends (Database::end_of_request).
// - Durability is PostgreSQL's own: synchronous_commit=on at --sync full (its commits share WAL flushes:
//   a group commit), off at normal and for WithNextCommit transactions (SET LOCAL).
// - A row lock or pool wait longer than Database::kBusyTimeoutMs, a deadlock (40P01), a serialization
//   failure (40001) or a lost connection is DatabaseBusy: answered 503, the key released.
// - Schema scripts run under an advisory lock, so instances starting together do not race to create tables.
#pragma once

#include <libpq-fe.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/db.h"

namespace lab {

class PostgresConnection;

class PostgresStatement final : public StatementBackend {
 public:
  PostgresStatement(PostgresConnection& conn, std::string sql) : conn_(conn), sql_(std::move(sql)) {}
  ~PostgresStatement() override { reset(); }
  void bind_int64(int index, std::int64_t value) override;
  void bind_text(int index, std::string_view text) override;
  void bind_blob(int index, std::string_view bytes) override;
  void bind_null(int index) override;
  bool step() override;
  std::int64_t column_int64(int column) const override;
  std::string column_text(int column) const override;
  bool column_is_null(int column) const override;
  int column_index(std::string_view name) const override;
  void reset() noexcept override;

 private:
  struct Parameter {
    std::optional<std::string> value;   // nullopt: NULL
    Oid type = 0;                       // 0: let the server infer it
    int format = 0;                     // 0 text, 1 binary (BLOBs)
  };
  void set(int index, Parameter parameter);
  void execute();
  const char* value(int column) const;

  PostgresConnection& conn_;
  const std::string sql_;   // in PostgreSQL's dialect
  std::vector<Parameter> parameters_;
  PGresult* result_ = nullptr;   // the whole result, once executed
  int row_ = -1;
};

class PostgresConnection final : public Connection {
 public:
  PostgresConnection(const std::string& uri, Sync sync);
  ~PostgresConnection() override;

  Statement prepare(std::string_view sql) override;
  void exec_script(const std::string& sql) override;
  std::int64_t last_insert_rowid() override;
  int changes() const override { return changes_; }
  std::string_view for_update() const override { return " FOR UPDATE"; }

  // Runs one statement without parameters and returns its command tag ("COMMIT", or "ROLLBACK" when COMMIT
  // found a failed transaction). Throws on error.
  std::string exec(const std::string& sql);
  // A prepared statement's name on the server, preparing it the first time these types are used.
  const std::string& prepared(const std::string& sql, const std::vector<Oid>& types);
  PGconn* handle() { return conn_; }
  void set_changes(int changes) { changes_ = changes; }
  bool usable();   // in a state to serve a new request; reconnects after a lost connection
  [[noreturn]] void throw_error(PGresult* result, std::string_view during);   // takes the result

 private:
  void configure_session();   // a new session's settings: notices ignored, lock_timeout, synchronous_commit
  PGconn* conn_ = nullptr;
  Sync sync_;
  int changes_ = 0;
  std::map<std::string, std::unique_ptr<PostgresStatement>, std::less<>> statement_cache_;
  std::map<std::string, std::string> prepared_;   // SQL + its parameter types -> the server-side name
};

class PostgresStore final : public Store {
 public:
  static constexpr std::size_t kPoolSize = 32;   // connections per process: 3 instances stay far below 100

  PostgresStore(const std::string& uri, Sync sync);
  ~PostgresStore() override;

  Connection& conn() override;
  Connection& begin_write(Durability durability, std::unique_lock<std::mutex>& lock) override;
  void commit(Connection& conn) override;
  void after_commit(Connection&, Durability, std::unique_lock<std::mutex>&) override {}
  void rollback(Connection& conn) noexcept override;
  // Nothing to wait for: a synchronous commit is on disk before PostgreSQL lets anyone see it. Only
  // WithNextCommit writes (a claim) are seen before they are durable, and no client is told "done" on them.
  void wait_until_durable() override {}
  void end_of_request() noexcept override;
  Connection& writer() override { return conn(); }

 private:
  std::string uri_;
  Sync sync_;
  std::mutex mutex_;   // guards everything below
  std::condition_variable returned_;
  std::vector<std::unique_ptr<PostgresConnection>> all_;
  std::vector<PostgresConnection*> idle_;
  std::unordered_map<std::thread::id, PostgresConnection*> lent_;
};

}  // namespace lab
