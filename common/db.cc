// db.cc: see db.h.
#include "common/db.h"

#include <string>

namespace lab {

// ---------------------------------------------------------------- Statement

Statement::~Statement() {
  if (stmt_) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
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
  // WAL: readers never block the writer. synchronous=NORMAL: a commit survives a crash of the process
  // (what Lab-Crash does); only a power loss could drop the last commits.
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

WriteTransaction::WriteTransaction(Database& db) : lock_(db.write_lock()), conn_(&db.conn()) {
  // IMMEDIATE takes SQLite's write lock now, not at the first write, so a transaction that read
  // something cannot later fail to upgrade (a deadlock SQLite answers with SQLITE_BUSY at once).
  conn_->prepare("BEGIN IMMEDIATE").run();
}

WriteTransaction::~WriteTransaction() {
  if (open_) sqlite3_exec(conn_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
  conn_->prepare("COMMIT").run();
  open_ = false;
}

// ---------------------------------------------------------------- Database

Database::Database(std::string path) : path_(std::move(path)) {
  conn();  // open now, so a bad path fails at start-up, not at the first request
}

Connection& Database::conn() {
  std::lock_guard guard(connections_mutex_);
  auto& slot = connections_[std::this_thread::get_id()];
  if (!slot) slot = std::make_unique<Connection>(path_);
  return *slot;
}

}  // namespace lab
