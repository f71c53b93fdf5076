// sqlite_store.cc: see sqlite_store.h.
#include "common/sqlite_store.h"

#include "common/group_commit.h"

namespace lab {

// ---------------------------------------------------------------- SqliteStatement

void SqliteStatement::check(int rc) {
  if (rc != SQLITE_OK) conn_.throw_error(rc, "bind");
}

void SqliteStatement::bind_int64(int index, std::int64_t value) { check(sqlite3_bind_int64(stmt_, index, value)); }

void SqliteStatement::bind_text(int index, std::string_view text) {
  check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
}

void SqliteStatement::bind_blob(int index, std::string_view bytes) {
  check(sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT));
}

void SqliteStatement::bind_null(int index) { check(sqlite3_bind_null(stmt_, index)); }

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  conn_.throw_error(rc, sqlite3_sql(stmt_));
}

std::string SqliteStatement::column_text(int column) const {
  const void* bytes = sqlite3_column_blob(stmt_, column);
  int size = sqlite3_column_bytes(stmt_, column);
  return bytes ? std::string(static_cast<const char*>(bytes), static_cast<size_t>(size)) : std::string();
}

int SqliteStatement::column_index(std::string_view name) const {
  for (int column = 0; column < sqlite3_column_count(stmt_); ++column)
    if (name == sqlite3_column_name(stmt_, column)) return column;
  throw DatabaseError(SQLITE_ERROR, "no column " + std::string(name) + " in the result");
}

void SqliteStatement::reset() noexcept {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

// ---------------------------------------------------------------- SqliteConnection

SqliteConnection::SqliteConnection(const std::string& path) {
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

SqliteConnection::~SqliteConnection() {
  statement_cache_.clear();   // finalized before the connection closes
  sqlite3_close(db_);
}

Statement SqliteConnection::prepare(std::string_view sql) {
  auto cached = statement_cache_.find(sql);
  if (cached != statement_cache_.end()) return Statement(*this, *cached->second);
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                              nullptr);
  if (rc != SQLITE_OK) throw_error(rc, sql);
  auto& slot = statement_cache_[std::string(sql)];
  slot = std::make_unique<SqliteStatement>(*this, stmt);
  return Statement(*this, *slot);
}

void SqliteConnection::exec_script(const std::string& sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw DatabaseError(rc, text + " (in: " + sql.substr(0, 80) + ")");
  }
}

void SqliteConnection::throw_error(int rc, std::string_view during) {
  int extended = sqlite3_extended_errcode(db_);
  std::string what = std::string(sqlite3_errmsg(db_)) + " (in: " + std::string(during.substr(0, 80)) + ")";
  if (extended == SQLITE_CONSTRAINT_UNIQUE || extended == SQLITE_CONSTRAINT_PRIMARYKEY)
    throw UniqueViolation(extended, what);
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) throw DatabaseBusy(extended, what);
  throw DatabaseError(extended, what);
}

// ---------------------------------------------------------------- SqliteStore

SqliteStore::SqliteStore(const std::string& path, Sync sync) : path_(path) {
  conn();  // open now, so a bad path fails at start-up, not at the first request
  writer_ = std::make_unique<SqliteConnection>(path_);
  // SQLite names the WAL after the database file as it resolved it (an absolute path).
  if (sync == Sync::Full)
    group_commit_ = std::make_unique<GroupCommit>(std::string(sqlite3_db_filename(writer_->handle(), "main")) + "-wal");
}

SqliteStore::~SqliteStore() = default;

Connection& SqliteStore::conn() {
  std::lock_guard guard(connections_mutex_);
  auto& slot = connections_[std::this_thread::get_id()];
  if (!slot) slot = std::make_unique<SqliteConnection>(path_);
  return *slot;
}

Connection& SqliteStore::begin_write(Durability, std::unique_lock<std::mutex>& lock) {
  lock = std::unique_lock(write_lock_);
  // IMMEDIATE takes SQLite's write lock now, not at the first write, so a transaction that read
  // something cannot later fail to upgrade (a deadlock SQLite answers with SQLITE_BUSY at once).
  writer_->prepare("BEGIN IMMEDIATE").run();
  return *writer_;
}

void SqliteStore::commit(Connection& conn) { conn.prepare("COMMIT").run(); }

void SqliteStore::after_commit(Connection& conn, Durability durability, std::unique_lock<std::mutex>& lock) {
  if (group_commit_ == nullptr) return;   // --sync normal
  std::uint64_t mine = group_commit_->count_commit();
  if (durability == Durability::WithNextCommit) return;
  // Wait for the disk without the write lock: the next writers commit meanwhile and share the next fsync.
  // Unless a Statement of this transaction is still alive (declared after it in the caller's scope): its
  // destructor will reset it on the one writer connection, and after an unlock another thread may be
  // using that connection, even that very cached statement (found by ASan: a double free in SQLite). Then
  // the lock is kept to the transaction's end and this commit waits for the disk alone.
  if (conn.live_statements() == 0) lock.unlock();
  group_commit_->wait_durable(mine);
}

void SqliteStore::rollback(Connection& conn) noexcept {
  sqlite3_exec(static_cast<SqliteConnection&>(conn).handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteStore::wait_until_durable() {
  if (group_commit_) group_commit_->wait_durable(group_commit_->last_commit());
}

}  // namespace lab
