// postgres_store.cc: see postgres_store.h.
#include "common/postgres_store.h"

#include <charconv>
#include <chrono>
#include <cstdlib>

#include "common/postgres_dialect.h"

namespace lab {
namespace {

constexpr Oid kInt8 = 20;    // PostgreSQL's type ids (pg_type.oid): bigint
constexpr Oid kBytea = 17;   // bytea
// Any number: a lock that only the lab's schema scripts take (pg_advisory_xact_lock).
constexpr long kSchemaLock = 0x1ab0;

// SQLSTATEs that mean "not now", not "wrong": the request may be retried. 40001 serialization failure,
// 40P01 deadlock, 55P03 lock not available (lock_timeout), 57014 canceled (statement_timeout), 53300 too
// many connections, 57P01 server shutting down; class 08 is a lost connection.
bool is_busy(const std::string& sqlstate) {
  return sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "55P03" || sqlstate == "57014" ||
         sqlstate == "53300" || sqlstate == "57P01" || sqlstate.rfind("08", 0) == 0;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The database the URI names, or "" if it names none (libpq then uses the user's name).
std::string database_name(const std::string& uri) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &error);
  if (!options) {
    std::string message = error ? trimmed(error) : "out of memory";
    PQfreemem(error);
    throw DatabaseError(kPostgresError, "bad PostgreSQL URI " + Database::printable(uri) + ": " + message);
  }
  std::string name;
  for (PQconninfoOption* option = options; option->keyword; ++option)
    if (std::string_view(option->keyword) == "dbname" && option->val) name = option->val;
  PQconninfoFree(options);
  return name;
}

// Like SQLite creating a missing file: CREATE DATABASE, from the server's maintenance database "postgres"
// with the URI's other settings. Another instance creating it at the same moment is fine (42P04, or 23505
// on the catalog's own unique index when both got past its check).
void create_database(const std::string& uri, const std::string& name) {
  const char* keywords[] = {"dbname", "dbname", nullptr};
  const char* values[] = {uri.c_str(), "postgres", nullptr};
  PGconn* admin = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (PQstatus(admin) != CONNECTION_OK) {
    std::string message = trimmed(PQerrorMessage(admin));
    PQfinish(admin);
    throw DatabaseError(kPostgresError, "cannot create database " + name + ": " + message);
  }
  char* quoted = PQescapeIdentifier(admin, name.c_str(), name.size());
  PGresult* result = PQexec(admin, ("CREATE DATABASE " + std::string(quoted ? quoted : "\"\"")).c_str());
  PQfreemem(quoted);
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  std::string sqlstate = state ? state : "";
  std::string message = trimmed(PQresultErrorMessage(result));
  bool ok = PQresultStatus(result) == PGRES_COMMAND_OK || sqlstate == "42P04" || sqlstate == "23505";
  PQclear(result);
  PQfinish(admin);
  if (!ok) throw DatabaseError(kPostgresError, "cannot create database " + name + ": " + message);
}

void ignore_notice(void*, const char*) {}   // "relation already exists, skipping" and the like

}  // namespace

// ---------------------------------------------------------------- PostgresStatement

void PostgresStatement::set(int index, Parameter parameter) {
  if (index < 1) throw DatabaseError(kPostgresError, "parameter index " + std::to_string(index) + " (from 1)");
  if (parameters_.size() < static_cast<std::size_t>(index)) parameters_.resize(static_cast<std::size_t>(index));
  parameters_[static_cast<std::size_t>(index - 1)] = std::move(parameter);
}

void PostgresStatement::bind_int64(int index, std::int64_t value) { set(index, {std::to_string(value), kInt8, 0}); }
void PostgresStatement::bind_text(int index, std::string_view text) { set(index, {std::string(text), 0, 0}); }
void PostgresStatement::bind_blob(int index, std::string_view bytes) { set(index, {std::string(bytes), kBytea, 1}); }
void PostgresStatement::bind_null(int index) { set(index, {std::nullopt, 0, 0}); }

void PostgresStatement::execute() {
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  for (const auto& p : parameters_) {
    types.push_back(p.type);
    values.push_back(p.value ? p.value->data() : nullptr);
    lengths.push_back(p.value ? static_cast<int>(p.value->size()) : 0);
    formats.push_back(p.format);
  }
  const std::string& name = conn_.prepared(sql_, types);
  PGresult* result = PQexecPrepared(conn_.handle(), name.c_str(), static_cast<int>(values.size()), values.data(),
                                    lengths.data(), formats.data(), /*text results*/ 0);
  ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) conn_.throw_error(result, sql_);
  result_ = result;
  row_ = -1;
  const char* tuples = PQcmdTuples(result);
  conn_.set_changes(*tuples ? std::atoi(tuples) : 0);
}

bool PostgresStatement::step() {
  if (!result_) execute();
  return ++row_ < PQntuples(result_);
}

const char* PostgresStatement::value(int column) const {
  if (!result_ || row_ < 0 || row_ >= PQntuples(result_) || column < 0 || column >= PQnfields(result_))
    throw DatabaseError(kPostgresError, "no column " + std::to_string(column) + " in this row of: " + sql_.substr(0, 80));
  return PQgetvalue(result_, row_, column);
}

std::int64_t PostgresStatement::column_int64(int column) const {
  const char* text = value(column);
  std::int64_t number = 0;
  std::from_chars(text, text + std::char_traits<char>::length(text), number);   // NULL ("") reads as 0, as in SQLite
  return number;
}

std::string PostgresStatement::column_text(int column) const {
  const char* text = value(column);
  std::size_t length = static_cast<std::size_t>(PQgetlength(result_, row_, column));
  // bytea arrives as text in hex ("\x6869"): back to the bytes, as SQLite returns a BLOB.
  if (PQftype(result_, column) == kBytea && length >= 2 && text[0] == '\\' && text[1] == 'x') {
    std::size_t size = 0;
    unsigned char* bytes = PQunescapeBytea(reinterpret_cast<const unsigned char*>(text), &size);
    if (!bytes) throw DatabaseError(kPostgresError, "out of memory reading a bytea");
    std::string out(reinterpret_cast<const char*>(bytes), size);
    PQfreemem(bytes);
    return out;
  }
  return std::string(text, length);
}

bool PostgresStatement::column_is_null(int column) const {
  value(column);   // checks the position
  return PQgetisnull(result_, row_, column) == 1;
}

int PostgresStatement::column_index(std::string_view name) const {
  if (result_)
    for (int column = 0; column < PQnfields(result_); ++column)
      if (name == PQfname(result_, column)) return column;
  throw DatabaseError(kPostgresError, "no column " + std::string(name) + " in the result");
}

void PostgresStatement::reset() noexcept {
  PQclear(result_);
  result_ = nullptr;
  row_ = -1;
  parameters_.clear();
}

// ---------------------------------------------------------------- PostgresConnection

PostgresConnection::PostgresConnection(const std::string& uri, Sync sync) : sync_(sync) {
  conn_ = PQconnectdb(uri.c_str());
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string message = trimmed(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw DatabaseBusy(kPostgresError, "cannot connect to " + Database::printable(uri) + ": " + message);
  }
  try {
    configure_session();
  } catch (...) {
    PQfinish(conn_);   // the destructor does not run for a constructor that throws
    throw;
  }
}

void PostgresConnection::configure_session() {
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
  // lock_timeout: a row lock waited for as long as SQLite's busy timeout is DatabaseBusy, as there.
  exec("SET lock_timeout = " + std::to_string(Database::kBusyTimeoutMs));
  exec(sync_ == Sync::Full ? "SET synchronous_commit = on" : "SET synchronous_commit = off");
}

PostgresConnection::~PostgresConnection() {
  statement_cache_.clear();
  PQfinish(conn_);
}

Statement PostgresConnection::prepare(std::string_view sql) {
  auto cached = statement_cache_.find(sql);
  if (cached == statement_cache_.end())
    cached = statement_cache_.emplace(std::string(sql), std::make_unique<PostgresStatement>(*this, to_postgres_parameters(sql))).first;
  return Statement(*this, *cached->second);
}

const std::string& PostgresConnection::prepared(const std::string& sql, const std::vector<Oid>& types) {
  std::string key = sql;
  for (Oid type : types) key += "\x1f" + std::to_string(type);
  auto found = prepared_.find(key);
  if (found != prepared_.end()) return found->second;
  std::string name = "lab_" + std::to_string(prepared_.size() + 1);
  PGresult* result = PQprepare(conn_, name.c_str(), sql.c_str(), static_cast<int>(types.size()), types.data());
  if (PQresultStatus(result) != PGRES_COMMAND_OK) throw_error(result, sql);
  PQclear(result);
  return prepared_.emplace(std::move(key), std::move(name)).first->second;
}

std::string PostgresConnection::exec(const std::string& sql) {
  PGresult* result = PQexec(conn_, sql.c_str());
  ExecStatusType status = PQresultStatus(result);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) throw_error(result, sql);
  std::string tag = PQcmdStatus(result);
  PQclear(result);
  return tag;
}

void PostgresConnection::exec_script(const std::string& sql) {
  // One transaction under the schema lock: of three instances starting at once, one creates the tables and
  // the others find them (CREATE TABLE IF NOT EXISTS alone may fail when two run it at the same moment).
  std::string script = to_postgres_schema(sql);
  try {
    exec("BEGIN");
    exec("SELECT pg_advisory_xact_lock(" + std::to_string(kSchemaLock) + ")");
    exec(script);
    exec("COMMIT");
  } catch (...) {
    PQclear(PQexec(conn_, "ROLLBACK"));
    throw;
  }
}

std::int64_t PostgresConnection::last_insert_rowid() {
  // lastval(): the value this session's last nextval() returned, i.e. the id of its last INSERT into a table
  // with an identity column (the translated INTEGER PRIMARY KEY).
  auto row = prepare("SELECT lastval()");
  row.step();
  return row.column_int64(0);
}

bool PostgresConnection::usable() {
  if (PQstatus(conn_) != CONNECTION_OK) {
    PQreset(conn_);   // the server restarted or the socket broke: the session, and its prepared statements, are new
    prepared_.clear();
    if (PQstatus(conn_) != CONNECTION_OK) return false;
    try {
      configure_session();
    } catch (const DatabaseError&) {
      return false;
    }
  }
  // A request that ended inside a transaction (its WriteTransaction rolled back, but be sure): not carried over.
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
  return PQtransactionStatus(conn_) == PQTRANS_IDLE;
}

void PostgresConnection::throw_error(PGresult* result, std::string_view during) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string sqlstate = state ? state : "";
  std::string message = trimmed(result && *PQresultErrorMessage(result) ? PQresultErrorMessage(result)
                                                                          : PQerrorMessage(conn_));
  PQclear(result);
  std::string what = message + " (SQLSTATE " + sqlstate + ", in: " + std::string(during.substr(0, 80)) + ")";
  if (sqlstate == "23505") throw UniqueViolation(kPostgresError, what);
  if (is_busy(sqlstate) || PQstatus(conn_) != CONNECTION_OK) throw DatabaseBusy(kPostgresError, what);
  throw DatabaseError(kPostgresError, what);
}

// ---------------------------------------------------------------- PostgresStore

PostgresStore::PostgresStore(const std::string& uri, Sync sync) : uri_(uri), sync_(sync) {
  std::unique_ptr<PostgresConnection> first;
  try {
    first = std::make_unique<PostgresConnection>(uri_, sync_);
  } catch (const DatabaseError& e) {
    std::string name = database_name(uri_);
    if (name.empty()) throw;
    create_database(uri_, name);   // a missing database; any other cause fails again just below
    first = std::make_unique<PostgresConnection>(uri_, sync_);
  }
  idle_.push_back(first.get());
  all_.push_back(std::move(first));
}

PostgresStore::~PostgresStore() = default;

Connection& PostgresStore::conn() {
  std::unique_lock lock(mutex_);
  auto id = std::this_thread::get_id();
  if (auto lent = lent_.find(id); lent != lent_.end()) return *lent->second;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(Database::kBusyTimeoutMs);
  while (idle_.empty() && all_.size() >= kPoolSize)
    if (returned_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty())
      throw DatabaseBusy(kPostgresError, "no database connection came free in " +
                                             std::to_string(Database::kBusyTimeoutMs) + " ms");
  PostgresConnection* connection = nullptr;
  if (!idle_.empty()) {
    connection = idle_.back();
    idle_.pop_back();
  } else {
    all_.push_back(std::make_unique<PostgresConnection>(uri_, sync_));   // throws DatabaseBusy if it cannot
    connection = all_.back().get();
  }
  if (!connection->usable()) {
    idle_.push_back(connection);
    returned_.notify_one();
    throw DatabaseBusy(kPostgresError, "the connection to the database was lost: " +
                                           trimmed(PQerrorMessage(connection->handle())));
  }
  lent_[id] = connection;
  return *connection;
}

void PostgresStore::end_of_request() noexcept {
  std::lock_guard lock(mutex_);
  auto lent = lent_.find(std::this_thread::get_id());
  if (lent == lent_.end()) return;
  idle_.push_back(lent->second);
  lent_.erase(lent);
  returned_.notify_one();
}

Connection& PostgresStore::begin_write(Durability durability, std::unique_lock<std::mutex>&) {
  auto& connection = static_cast<PostgresConnection&>(conn());
  connection.exec("BEGIN");
  // A claim, take-over or release: made durable by the next synchronous commit, like SQLite's (db.h).
  if (durability == Durability::WithNextCommit && sync_ == Sync::Full)
    connection.exec("SET LOCAL synchronous_commit = off");
  return connection;
}

void PostgresStore::commit(Connection& conn) {
  // A transaction in which a statement failed cannot commit: PostgreSQL answers COMMIT with the tag
  // ROLLBACK, not with an error. Nothing was written, and the caller must not think otherwise.
  std::string tag = static_cast<PostgresConnection&>(conn).exec("COMMIT");
  if (tag != "COMMIT") throw DatabaseError(kPostgresError, "COMMIT was answered " + tag + ": the transaction had failed");
}

void PostgresStore::rollback(Connection& conn) noexcept {
  PQclear(PQexec(static_cast<PostgresConnection&>(conn).handle(), "ROLLBACK"));
}

}  // namespace lab
