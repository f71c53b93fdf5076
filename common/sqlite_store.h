// sqlite_store.h: the lab's default store, SQLite in one file (db.h). docs/reference/plumbing.md "SQLite".
//
// One process at a time serves from the file (more processes on one file would be safe, as SQLite locks the
// file, but the lab clock's offset is cached per process). Writers are serialized twice: a process-wide
// mutex queues this process's writers fairly, then BEGIN IMMEDIATE takes SQLite's own write lock.
#pragma once

#include <sqlite3.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "common/db.h"

namespace lab {

class SqliteConnection;

class SqliteStatement final : public StatementBackend {
 public:
  SqliteStatement(SqliteConnection& conn, sqlite3_stmt* stmt) : conn_(conn), stmt_(stmt) {}
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  void bind_int64(int index, std::int64_t value) override;
  void bind_text(int index, std::string_view text) override;
  void bind_blob(int index, std::string_view bytes) override;
  void bind_null(int index) override;
  bool step() override;
  std::int64_t column_int64(int column) const override { return sqlite3_column_int64(stmt_, column); }
  std::string column_text(int column) const override;
  bool column_is_null(int column) const override { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  int column_index(std::string_view name) const override;
  void reset() noexcept override;

 private:
  void check(int rc);
  SqliteConnection& conn_;
  sqlite3_stmt* stmt_;
};

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(const std::string& path);
  ~SqliteConnection() override;

  Statement prepare(std::string_view sql) override;
  void exec_script(const std::string& sql) override;
  std::int64_t last_insert_rowid() override { return sqlite3_last_insert_rowid(db_); }
  int changes() const override { return sqlite3_changes(db_); }
  std::string_view for_update() const override { return ""; }
  sqlite3* handle() { return db_; }
  [[noreturn]] void throw_error(int rc, std::string_view during);

 private:
  sqlite3* db_ = nullptr;
  std::map<std::string, std::unique_ptr<SqliteStatement>, std::less<>> statement_cache_;  // this thread only
};

class GroupCommit;

class SqliteStore final : public Store {
 public:
  SqliteStore(const std::string& path, Sync sync);
  ~SqliteStore() override;

  Connection& conn() override;
  Connection& begin_write(Durability durability, std::unique_lock<std::mutex>& lock) override;
  void commit(Connection& conn) override;
  void after_commit(Connection& conn, Durability durability, std::unique_lock<std::mutex>& lock) override;
  void rollback(Connection& conn) noexcept override;
  void wait_until_durable() override;
  GroupCommit* group_commit() override { return group_commit_.get(); }
  Connection& writer() override { return *writer_; }

 private:
  std::string path_;
  // The application-level write lock. SQLite's own busy handler sleeps and retries with back-off, which
  // starves writers under contention (a probe measured p99 near one second with 16 writers). Taking this
  // mutex first queues the writers of this process fairly and BEGIN IMMEDIATE then rarely waits.
  // It is a per-process convenience only: between processes SQLite's locks and the UNIQUE constraint
  // still decide. docs/reference/plumbing.md "SQLite", and docs/reference/beyond-one-process.md "Beyond one process".
  std::mutex write_lock_;
  std::mutex connections_mutex_;  // guards connections_
  std::unordered_map<std::thread::id, std::unique_ptr<SqliteConnection>> connections_;
  // The connection of every write transaction: only while write_lock_ is held.
  //
  // Why one: when a connection sees that another one wrote, SQLite drops its whole page cache (the WAL
  // changed), so with one connection per thread nearly every write transaction began by reading its pages
  // again. Writers are serialized anyway; one writer keeps its cache warm and its statements prepared
  // (make bench measured the difference: docs/reference/plumbing.md "Performance").
  std::unique_ptr<SqliteConnection> writer_;
  std::unique_ptr<GroupCommit> group_commit_;   // at Sync::Full only
};

}  // namespace lab
