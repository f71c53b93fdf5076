// db.h: a thin RAII layer over SQLite. LAB.md "Plumbing: SQLite".
//
//   Database db("lab.db", Sync::Full);           // WAL, busy timeout (kBusyTimeoutMs), foreign keys
//   auto tx = db.begin_write();                   // the write lock, then BEGIN IMMEDIATE
//   tx.conn().prepare("INSERT INTO t(k) VALUES (?1)").bind(1, key).run();   // may throw UniqueViolation
//   tx.commit();                                  // without commit(), the destructor rolls back
//   auto row = db.conn().prepare("SELECT v FROM t WHERE k = ?1");   // keep the Statement: bind returns Statement&
//   row.bind(1, key);
//   std::string v = row.step() ? row.column_text(0) : "";           // step(): true while a row is available
//
// Rules the lab relies on:
// - Every statement is prepared with bound parameters: no SQL is ever built from request data.
// - A UNIQUE (or PRIMARY KEY) violation is thrown as the typed error UniqueViolation. This is how stage 2+
//   learn that a key was already there: the failed INSERT *is* the decision (never SELECT first).
// - SQLITE_BUSY after the busy timeout is thrown as DatabaseBusy (answered 503, the key released).
// - Durability is the server's --sync (Sync below) and, per transaction, Durability: a key's claim may wait
//   for the next commit's fsync (LAB.md "Performance", durability).
// - Tests only: LAB_SLOW_WRITE_MS=<ms> sleeps before every write transaction and before its COMMIT
//   (db.cc says why).
//
// Thread safety: a Database may be shared by all handler threads. SQLite connections must not be used by two
// threads at once: each thread reads through its own connection (conn(); connections_ is guarded by
// connections_mutex_), and every write transaction uses the one writer connection, held only under
// write_lock_ (see begin_write). Statements of tx.conn() must not outlive their transaction.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace lab {

struct DatabaseError : std::runtime_error {
  int code;  // SQLite's extended result code
  DatabaseError(int code, const std::string& what) : std::runtime_error(what), code(code) {}
};
// The constraint that makes a key unique refused a second row: this request is a repeat.
struct UniqueViolation : DatabaseError {
  using DatabaseError::DatabaseError;
};
// Another writer held the database longer than the busy timeout: not the request's fault.
struct DatabaseBusy : DatabaseError {
  using DatabaseError::DatabaseError;
};

// How a COMMIT reaches the disk: the server's --sync. LAB.md "Performance" (durability) says what each risks.
//   Full    a durable commit is on disk (the WAL fsynced) before commit() returns, and nothing is answered
//           before what it read is on disk: a transfer answered 201 survives a power cut. Commits that wait
//           at the same time share one fsync (group_commit.h).
//   Normal  the WAL is fsynced only at checkpoints: a commit survives a crash of the process (Lab-Crash,
//           SIGKILL), but a power cut may undo the last commits, answered ones too, keys and all; the
//           client was told "done" and never retries.
// SQLite itself runs at synchronous=NORMAL in both: at Full the lab makes the fsyncs (GroupCommit).
enum class Sync { Full, Normal };

// What one write transaction needs of its own COMMIT, at --sync full.
//   AtCommit        durable when commit() returns.
//   WithNextCommit  commit() does not wait for the disk. A power cut may undo it, but only together with every
//                   later commit: SQLite appends commits to the WAL in order and an fsync covers everything
//                   before it, so the next durable commit makes this one durable too. Right for a write no
//                   client has been told about yet, whose loss looks like a crash just before it: a key's
//                   claim, take-over or release. It saves an fsync per request.
enum class Durability { AtCommit, WithNextCommit };

class GroupCommit;

class Connection;

// One prepared statement with its bindings. Reset (ready for reuse from the cache) when destroyed.
class Statement {
 public:
  Statement(Connection& conn, sqlite3_stmt* stmt);
  Statement(Statement&& other) noexcept : conn_(other.conn_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::nullptr_t);
  Statement& bind(int index, const std::optional<std::int64_t>& value);
  Statement& bind(int index, const std::optional<std::string>& value);
  Statement& bind_blob(int index, std::string_view bytes);

  bool step();   // true while a row is available; throws on error
  void run();    // steps to the end, for statements that return no rows
  std::int64_t column_int64(int column) const;
  std::string column_text(int column) const;   // also reads BLOBs as bytes
  bool column_is_null(int column) const;
  int column_index(std::string_view name) const;   // for SELECT *: the named column's position; throws if none

 private:
  Connection* conn_;
  sqlite3_stmt* stmt_;
};

class Connection {
 public:
  explicit Connection(const std::string& path);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Statement prepare(std::string_view sql);          // cached per connection
  void exec_script(const std::string& sql);         // schema only: several statements, no parameters
  std::int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  int changes() const { return sqlite3_changes(db_); }
  sqlite3* handle() { return db_; }
  [[noreturn]] void throw_error(int rc, std::string_view during);
  // Statements of this connection not yet destroyed. A cached statement's destructor resets it, which
  // touches the connection: WriteTransaction::commit keeps the write lock while one is alive.
  int live_statements() const { return live_statements_; }

 private:
  friend class Statement;
  sqlite3* db_ = nullptr;
  std::atomic<int> live_statements_{0};  // atomic: a destructor may run after the write lock is gone
  std::map<std::string, sqlite3_stmt*, std::less<>> statement_cache_;  // this thread only
};

class Database;

// A write transaction: holds the process-wide write lock, then BEGIN IMMEDIATE.
class WriteTransaction {
 public:
  WriteTransaction(Database& db, Durability durability);
  ~WriteTransaction();   // rolls back unless committed
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  Connection& conn() { return *conn_; }
  void commit();

 private:
  std::unique_lock<std::mutex> lock_;
  Database* db_;
  Connection* conn_;
  Durability durability_;
  bool open_ = true;
};

class Database {
 public:
  // How long a statement waits for another process's write lock before DatabaseBusy, in milliseconds.
  static constexpr int kBusyTimeoutMs = 5000;

  explicit Database(std::string path, Sync sync = Sync::Full);
  ~Database();
  const std::string& path() const { return path_; }
  Sync sync() const { return sync_; }

  Connection& conn();                           // this thread's connection, for reads
  WriteTransaction begin_write(Durability durability = Durability::AtCommit) {
    return WriteTransaction(*this, durability);
  }
  void exec_script(const std::string& sql) { conn().exec_script(sql); }

  // At --sync full: returns once every commit made before the call is on disk; at normal, at once. Called
  // before a money route answers (lab.cc): a repeat may have read a commit that is not yet on disk, and must
  // not tell its client "done" before it is. Throws DatabaseError if the fsync fails.
  void wait_until_durable();
  // At --sync full the group commit (fsyncs counted, for tests and make bench); nullptr at normal.
  GroupCommit* group_commit() { return group_commit_.get(); }

  // The application-level write lock. SQLite's own busy handler sleeps and retries with back-off, which
  // starves writers under contention (a probe measured p99 near one second with 16 writers). Taking this
  // mutex first queues the writers of this process fairly and BEGIN IMMEDIATE then rarely waits.
  // It is a per-process convenience only: between processes SQLite's locks and the UNIQUE constraint
  // still decide. LAB.md "Plumbing: SQLite".
  std::mutex& write_lock() { return write_lock_; }
  // The connection of every write transaction: only while write_lock() is held.
  //
  // Why one: when a connection sees that another one wrote, SQLite drops its whole page cache (the WAL
  // changed), so with one connection per thread nearly every write transaction began by reading its pages
  // again. Writers are serialized anyway; one writer keeps its cache warm and its statements prepared
  // (make bench measured the difference: LAB.md "Performance").
  Connection& writer() { return *writer_; }

 private:
  std::string path_;
  Sync sync_;
  std::mutex write_lock_;
  std::mutex connections_mutex_;  // guards connections_
  std::unordered_map<std::thread::id, std::unique_ptr<Connection>> connections_;
  std::unique_ptr<Connection> writer_;   // guarded by write_lock_
  std::unique_ptr<GroupCommit> group_commit_;   // at Sync::Full only
};

}  // namespace lab
