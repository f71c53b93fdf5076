// db.h: the lab's database, SQLite or PostgreSQL, behind one small interface. docs/reference/plumbing.md "SQLite" and
// "Beyond one process".
//
//   Database db("lab.db", Sync::Full);           // a file: SQLite (WAL, busy timeout, foreign keys)
//   Database db("postgresql:///lab?host=/tmp/pg&user=lab");   // a URI: PostgreSQL (libpq), shared by processes
//   auto tx = db.begin_write();                   // a write transaction (what it locks: the store says)
//   tx.conn().prepare("INSERT INTO t(k) VALUES (?1)").bind(1, key).run();   // may throw UniqueViolation
//   tx.commit();                                  // without commit(), the destructor rolls back
//   auto row = db.conn().prepare("SELECT v FROM t WHERE k = ?1");   // keep the Statement: bind returns Statement&
//   row.bind(1, key);
//   std::string v = row.step() ? row.column_text(0) : "";           // step(): true while a row is available
//
// The SQL is written once, in SQLite's dialect (?1 parameters, INTEGER, BLOB); the PostgreSQL store translates
// the few spellings that differ (postgres_dialect.h). The lesson code never asks which store it runs on.
//
// Rules the lab relies on:
// - Every statement is prepared with bound parameters: no SQL is ever built from request data.
// - A UNIQUE (or PRIMARY KEY) violation is thrown as the typed error UniqueViolation, by both stores (SQLite's
//   SQLITE_CONSTRAINT_UNIQUE, PostgreSQL's SQLSTATE 23505). This is how stage 2+ learn that a key was already
//   there: the failed INSERT *is* the decision (never SELECT first).
// - A database too busy to answer in time (SQLITE_BUSY after the busy timeout; PostgreSQL's deadlock,
//   serialization failure or lost connection) is thrown as DatabaseBusy (answered 503, the key released).
// - A SELECT that decides what a write transaction does appends conn.for_update() when another transaction
//   must not change those rows before this one commits: SQLite's write transaction already holds the whole
//   database, PostgreSQL's locks only the rows it writes or reads FOR UPDATE.
// - Durability is the server's --sync (Sync below) and, per transaction, Durability: a key's claim may wait
//   for the next commit's fsync (docs/reference/plumbing.md "Performance", durability).
// - Tests only: LAB_SLOW_WRITE_MS=<ms> sleeps before every write transaction and before its COMMIT
//   (db.cc says why).
//
// Thread safety: a Database may be shared by all handler threads. A connection must not be used by two
// threads at once: conn() is this thread's connection. SQLite: each thread reads through its own
// connection, and every write transaction uses the one writer connection, under a process-wide write lock.
// PostgreSQL: a thread borrows a connection from a small pool for the length of one request
// (end_of_request() gives it back), and its write transactions run on it, side by side with other threads'.
// Statements of tx.conn() must not outlive their transaction.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lab {

struct DatabaseError : std::runtime_error {
  int code;  // SQLite's extended result code; for PostgreSQL kPostgresError (the SQLSTATE is in the message)
  DatabaseError(int code, const std::string& what) : std::runtime_error(what), code(code) {}
};
inline constexpr int kPostgresError = -1;
// The constraint that makes a key unique refused a second row: this request is a repeat.
struct UniqueViolation : DatabaseError {
  using DatabaseError::DatabaseError;
};
// Another writer held the database longer than the busy timeout: not the request's fault.
struct DatabaseBusy : DatabaseError {
  using DatabaseError::DatabaseError;
};

// How a COMMIT reaches the disk: the server's --sync. docs/reference/plumbing.md "Performance" (durability) says what each risks.
//   Full    a durable commit is on disk (the WAL fsynced) before commit() returns, and nothing is answered
//           before what it read is on disk: a transfer answered 201 survives a power cut. Commits that wait
//           at the same time share one fsync (group_commit.h).
//   Normal  the WAL is fsynced only at checkpoints: a commit survives a crash of the process (Lab-Crash,
//           SIGKILL), but a power cut may undo the last commits, answered ones too, keys and all; the
//           client was told "done" and never retries.
// SQLite itself runs at synchronous=NORMAL in both: at Full the lab makes the fsyncs (GroupCommit).
// PostgreSQL: Full is synchronous_commit=on (its own group commit shares the WAL flushes), Normal is off.
enum class Sync { Full, Normal };

// What one write transaction needs of its own COMMIT, at --sync full.
//   AtCommit        durable when commit() returns.
//   WithNextCommit  commit() does not wait for the disk. A power cut may undo it, but only together with every
//                   later commit: SQLite appends commits to the WAL in order and an fsync covers everything
//                   before it, so the next durable commit makes this one durable too. Right for a write no
//                   client has been told about yet, whose loss looks like a crash just before it: a key's
//                   claim, take-over or release. It saves an fsync per request. (PostgreSQL: the same
//                   promise, from SET LOCAL synchronous_commit = off: its WAL is in order too.)
enum class Durability { AtCommit, WithNextCommit };

class GroupCommit;
class Connection;

// What a store's statement does; Statement is its handle. Implemented by sqlite_store.cc and postgres_store.cc.
class StatementBackend {
 public:
  virtual ~StatementBackend() = default;
  virtual void bind_int64(int index, std::int64_t value) = 0;
  virtual void bind_text(int index, std::string_view text) = 0;
  virtual void bind_blob(int index, std::string_view bytes) = 0;
  virtual void bind_null(int index) = 0;
  virtual bool step() = 0;
  virtual std::int64_t column_int64(int column) const = 0;
  virtual std::string column_text(int column) const = 0;
  virtual bool column_is_null(int column) const = 0;
  virtual int column_index(std::string_view name) const = 0;
  virtual void reset() noexcept = 0;   // bindings and results cleared, ready for reuse from the cache
};

// One prepared statement with its bindings. Reset (ready for reuse from the cache) when destroyed.
class Statement {
 public:
  Statement(Connection& conn, StatementBackend& backend);
  Statement(Statement&& other) noexcept : conn_(other.conn_), backend_(other.backend_) { other.backend_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::int64_t value) { return backend_->bind_int64(index, value), *this; }
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, std::string_view text) { return backend_->bind_text(index, text), *this; }
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::nullptr_t) { return backend_->bind_null(index), *this; }
  Statement& bind(int index, const std::optional<std::int64_t>& value);
  Statement& bind(int index, const std::optional<std::string>& value);
  Statement& bind_blob(int index, std::string_view bytes) { return backend_->bind_blob(index, bytes), *this; }

  bool step() { return backend_->step(); }   // true while a row is available; throws on error
  void run();    // steps to the end, for statements that return no rows
  std::int64_t column_int64(int column) const { return backend_->column_int64(column); }
  std::string column_text(int column) const { return backend_->column_text(column); }   // also reads BLOBs as bytes
  bool column_is_null(int column) const { return backend_->column_is_null(column); }
  int column_index(std::string_view name) const { return backend_->column_index(name); }   // throws if none

 private:
  Connection* conn_;
  StatementBackend* backend_;
};

// One connection to the database. Used by one thread at a time.
class Connection {
 public:
  Connection() = default;
  virtual ~Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  virtual Statement prepare(std::string_view sql) = 0;          // cached per connection
  virtual void exec_script(const std::string& sql) = 0;         // schema only: several statements, no parameters
  virtual std::int64_t last_insert_rowid() = 0;                 // the id the last INSERT on this connection made
  virtual int changes() const = 0;                              // rows the last INSERT, UPDATE or DELETE changed
  // Appended to a SELECT in a write transaction whose rows must not change before it commits: " FOR UPDATE"
  // on PostgreSQL (a row lock, held to the end of the transaction); "" on SQLite, whose write transaction
  // already holds the write lock of the whole database.
  virtual std::string_view for_update() const = 0;
  // Statements of this connection not yet destroyed. A cached statement's destructor resets it, which
  // touches the connection: the SQLite store's commit keeps the write lock while one is alive.
  int live_statements() const { return live_statements_; }

 private:
  friend class Statement;
  std::atomic<int> live_statements_{0};  // atomic: a destructor may run after the write lock is gone
};

class Database;

// How a store runs a write transaction. Implemented by SqliteStore and PostgresStore; used by
// WriteTransaction and Database only.
class Store {
 public:
  virtual ~Store() = default;
  virtual Connection& conn() = 0;   // this thread's connection
  // Starts a write transaction and returns its connection. lock: the store may take a lock into it, held
  // until commit() releases it or the transaction object ends.
  virtual Connection& begin_write(Durability durability, std::unique_lock<std::mutex>& lock) = 0;
  virtual void commit(Connection& conn) = 0;   // COMMIT; throws if it did not commit
  // After a COMMIT: wait for the disk as durability asks (and release lock when that is safe).
  virtual void after_commit(Connection& conn, Durability durability, std::unique_lock<std::mutex>& lock) = 0;
  virtual void rollback(Connection& conn) noexcept = 0;
  virtual void wait_until_durable() = 0;
  virtual void end_of_request() noexcept {}
  virtual GroupCommit* group_commit() { return nullptr; }
  virtual Connection& writer() = 0;   // the connection this thread's write transactions use (tests)
};

// A write transaction. SQLite: the process-wide write lock, then BEGIN IMMEDIATE. PostgreSQL: BEGIN on this
// thread's connection.
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
  Store* store_;
  Connection* conn_;
  Durability durability_;
  bool open_ = true;
};

class Database {
 public:
  // How long a statement waits for another process's write lock before DatabaseBusy, in milliseconds.
  static constexpr int kBusyTimeoutMs = 5000;

  // location: a file (SQLite, created if missing) or a postgresql:// or postgres:// URI (PostgreSQL; the
  // database is created if missing, and the tables in it). Throws DatabaseError.
  explicit Database(std::string location, Sync sync = Sync::Full);
  ~Database();
  const std::string& path() const { return location_; }   // the file or the URI, as given
  Sync sync() const { return sync_; }
  // True for PostgreSQL: other processes (more instances of the server) may share this database, so no
  // process may keep a copy of what is in it (the lab clock reads its offset each time).
  bool shared_by_processes() const { return shared_by_processes_; }
  static bool is_postgres_uri(std::string_view location);
  // The location as it may be printed: a PostgreSQL URI's password (user:PASSWORD@ or password=) as ***.
  static std::string printable(const std::string& location);

  Connection& conn() { return store_->conn(); }   // this thread's connection, for reads
  WriteTransaction begin_write(Durability durability = Durability::AtCommit) {
    return WriteTransaction(*this, durability);
  }
  void exec_script(const std::string& sql) { conn().exec_script(sql); }
  // The request this thread served has ended: PostgreSQL gives the thread's connection back to the pool.
  // Called after every response (run_stage); harmless anywhere else.
  void end_of_request() noexcept { store_->end_of_request(); }

  // At --sync full: returns once every commit made before the call is on disk; at normal, at once. Called
  // before a money route answers (lab.cc): a repeat may have read a commit that is not yet on disk, and must
  // not tell its client "done" before it is. Throws DatabaseError if the fsync fails.
  void wait_until_durable() { store_->wait_until_durable(); }
  // SQLite at --sync full: the group commit (fsyncs counted, for tests and make bench); nullptr otherwise.
  GroupCommit* group_commit() { return store_->group_commit(); }
  // The connection this thread's write transactions use (tests).
  Connection& writer() { return store_->writer(); }
  Store& store() { return *store_; }

 private:
  std::string location_;
  Sync sync_;
  bool shared_by_processes_;
  std::unique_ptr<Store> store_;
};

}  // namespace lab
