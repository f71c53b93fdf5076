// db.cc: see db.h.
#include "common/db.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string>

#include "common/group_commit.h"

namespace lab {
namespace {

// ---------------------------------------------------------------- The slow-write knob (tests only)

// LAB_SLOW_WRITE_MS=<ms> makes every write transaction sleep that long twice: before it takes the write
// lock (the handler's work between two writes, slowed) and just before COMMIT, lock held (the write
// itself, slowed). That is a server as slow as a sanitizer build, a loaded CI machine or a debug build
// makes it; the first sleep matters most, as it lets a repeat run between the first request's two
// transactions. It exists so the grader can be shown not to depend on the server's speed
// (`make slow-matrix`, LAB.md "The grader", what it assumes about time). Unset or 0: no delay. Never set
// it for a lesson.
constexpr const char* kSlowWriteVariable = "LAB_SLOW_WRITE_MS";
// Above this a write outlasts the grader's patience (15 s per response, shared by a burst of 16 writers).
constexpr int kMaxSlowWriteMs = 200;

// Read once: the environment does not change under a running server. A bad value stops the server at
// start-up (Database's constructor asks first, and run_stage reports a DatabaseError), never mid-request.
std::chrono::milliseconds slow_write_delay() {
  static const std::chrono::milliseconds delay = [] {
    const char* text = std::getenv(kSlowWriteVariable);
    if (!text || !*text) return std::chrono::milliseconds(0);
    int ms = 0;
    auto [end, ec] = std::from_chars(text, text + std::char_traits<char>::length(text), ms);
    if (ec != std::errc() || *end != '\0' || ms < 0 || ms > kMaxSlowWriteMs)
      throw DatabaseError(SQLITE_MISUSE, std::string(kSlowWriteVariable) + " must be 0.." + std::to_string(kMaxSlowWriteMs) +
                                  " (milliseconds), not \"" + text + "\"");
    return std::chrono::milliseconds(ms);
  }();
  return delay;
}

}  // namespace

// ---------------------------------------------------------------- Statement

Statement::Statement(Connection& conn, sqlite3_stmt* stmt) : conn_(&conn), stmt_(stmt) { ++conn_->live_statements_; }

Statement::~Statement() {
  if (stmt_) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    --conn_->live_statements_;  // the last touch of the connection
  }
}

Statement& Statement::bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) conn_->throw_error(rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  int rc = sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) conn_->throw_error(rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, std::nullptr_t) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) conn_->throw_error(rc, "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& value) {
  return value ? bind(index, *value) : bind(index, nullptr);
}

Statement& Statement::bind(int index, const std::optional<std::string>& value) {
  return value ? bind(index, std::string_view(*value)) : bind(index, nullptr);
}

Statement& Statement::bind_blob(int index, std::string_view bytes) {
  int rc = sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) conn_->throw_error(rc, "bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  conn_->throw_error(rc, sqlite3_sql(stmt_));
}

void Statement::run() {
  while (step()) {
  }
}

std::int64_t Statement::column_int64(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::column_text(int column) const {
  const void* bytes = sqlite3_column_blob(stmt_, column);
  int size = sqlite3_column_bytes(stmt_, column);
  return bytes ? std::string(static_cast<const char*>(bytes), static_cast<size_t>(size)) : std::string();
}

bool Statement::column_is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

int Statement::column_index(std::string_view name) const {
  for (int column = 0; column < sqlite3_column_count(stmt_); ++column)
    if (name == sqlite3_column_name(stmt_, column)) return column;
  throw DatabaseError(SQLITE_ERROR, "no column " + std::string(name) + " in the result");
}

// ---------------------------------------------------------------- Connection

Connection::Connection(const std::string& path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw DatabaseError(rc, "cannot open database " + path + ": " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, Database::kBusyTimeoutMs);
  // WAL: readers never block the writer. synchronous=NORMAL: COMMIT writes the WAL without an fsync; at
  // --sync full the lab makes the fsyncs (Sync in db.h, group_commit.h).
  exec_script("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
}

Connection::~Connection() {
  for (auto& [sql, stmt] : statement_cache_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

Statement Connection::prepare(std::string_view sql) {
  auto cached = statement_cache_.find(sql);
  if (cached != statement_cache_.end()) return Statement(*this, cached->second);
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                              nullptr);
  if (rc != SQLITE_OK) throw_error(rc, sql);
  statement_cache_.emplace(std::string(sql), stmt);
  return Statement(*this, stmt);
}

void Connection::exec_script(const std::string& sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw DatabaseError(rc, text + " (in: " + sql.substr(0, 80) + ")");
  }
}

void Connection::throw_error(int rc, std::string_view during) {
  int extended = sqlite3_extended_errcode(db_);
  std::string what = std::string(sqlite3_errmsg(db_)) + " (in: " + std::string(during.substr(0, 80)) + ")";
  if (extended == SQLITE_CONSTRAINT_UNIQUE || extended == SQLITE_CONSTRAINT_PRIMARYKEY)
    throw UniqueViolation(extended, what);
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) throw DatabaseBusy(extended, what);
  throw DatabaseError(extended, what);
}

// ---------------------------------------------------------------- WriteTransaction

namespace {
// The slow start runs in the initializer list, before lock_ is taken: this sleep holds no lock.
std::mutex& write_lock_after_slow_start(Database& db) {
  if (auto delay = slow_write_delay(); delay.count() > 0) std::this_thread::sleep_for(delay);
  return db.write_lock();
}
}  // namespace

WriteTransaction::WriteTransaction(Database& db, Durability durability)
    : lock_(write_lock_after_slow_start(db)), db_(&db), conn_(&db.writer()), durability_(durability) {
  // IMMEDIATE takes SQLite's write lock now, not at the first write, so a transaction that read
  // something cannot later fail to upgrade (a deadlock SQLite answers with SQLITE_BUSY at once).
  conn_->prepare("BEGIN IMMEDIATE").run();
}

WriteTransaction::~WriteTransaction() {
  if (open_) sqlite3_exec(conn_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
  if (auto delay = slow_write_delay(); delay.count() > 0) std::this_thread::sleep_for(delay);
  conn_->prepare("COMMIT").run();
  open_ = false;
  GroupCommit* group = db_->group_commit();
  if (group == nullptr) return;   // --sync normal
  std::uint64_t mine = group->count_commit();
  if (durability_ == Durability::WithNextCommit) return;
  // Wait for the disk without the write lock: the next writers commit meanwhile and share the next fsync.
  // Unless a Statement of this transaction is still alive (declared after it in the caller's scope): its
  // destructor will reset it on the one writer connection, and after an unlock another thread may be
  // using that connection, even that very cached statement (found by ASan: a double free in SQLite). Then
  // the lock is kept to the transaction's end and this commit waits for the disk alone.
  if (conn_->live_statements() == 0) lock_.unlock();
  group->wait_durable(mine);
}

// ---------------------------------------------------------------- Database

Database::Database(std::string path, Sync sync) : path_(std::move(path)), sync_(sync) {
  slow_write_delay();  // a bad LAB_SLOW_WRITE_MS fails at start-up too
  conn();  // open now, so a bad path fails at start-up, not at the first request
  writer_ = std::make_unique<Connection>(path_);
  // SQLite names the WAL after the database file as it resolved it (an absolute path).
  if (sync_ == Sync::Full)
    group_commit_ = std::make_unique<GroupCommit>(std::string(sqlite3_db_filename(writer_->handle(), "main")) + "-wal");
}

Database::~Database() = default;

void Database::wait_until_durable() {
  if (group_commit_) group_commit_->wait_durable(group_commit_->last_commit());
}

Connection& Database::conn() {
  std::lock_guard guard(connections_mutex_);
  auto& slot = connections_[std::this_thread::get_id()];
  if (!slot) slot = std::make_unique<Connection>(path_);
  return *slot;
}

}  // namespace lab
