// bank.cc: see bank.h.
#include "common/bank.h"

#include "common/fingerprint.h"
#include "common/lab_controls.h"
#include "common/token.h"

namespace lab {
namespace {

// Schema. Balances can never go negative (CHECK), so even a bug cannot overdraw an account silently.
//   clients(id, name, token_sha256 UNIQUE, created_at)
//   accounts(id, client_id -> clients, currency, opening_balance, balance >= 0, created_at)
//   ledger(id, kind 'transfer'|'payout', from_account -> accounts, to_account -> accounts | NULL,
//          destination | NULL, amount > 0, currency, memo, metadata | NULL, from_balance_after, created_at)
//   ledger.metadata is the request's `metadata` object as RFC 8785 canonical JSON text, NULL when the
//   request had none (echoed as a JSON object, omitted when NULL).
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS clients (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (
  id              INTEGER PRIMARY KEY,
  client_id       INTEGER NOT NULL REFERENCES clients(id),
  currency        TEXT NOT NULL,
  opening_balance INTEGER NOT NULL,
  balance         INTEGER NOT NULL CHECK (balance >= 0),
  created_at      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ledger (
  id                 INTEGER PRIMARY KEY,
  kind               TEXT NOT NULL CHECK (kind IN ('transfer', 'payout')),
  from_account       INTEGER NOT NULL REFERENCES accounts(id),
  to_account         INTEGER REFERENCES accounts(id),
  destination        TEXT,
  amount             INTEGER NOT NULL CHECK (amount > 0),
  currency           TEXT NOT NULL,
  memo               TEXT NOT NULL,
  metadata           TEXT,
  from_balance_after INTEGER NOT NULL,
  created_at         INTEGER NOT NULL
);
)sql";

constexpr int kTokenBytes = 32;   // 256 random bits: guessing a token is hopeless
constexpr int kLabFailBusy = 5;   // SQLITE_BUSY, the code of the error Lab-Fail: busy imitates

constexpr const char* kSelectEntry =
    "SELECT id, kind, from_account, to_account, destination, amount, currency, memo, from_balance_after, "
    "created_at, metadata FROM ledger";

LedgerEntry entry_from_row(const Statement& row) {
  LedgerEntry e;
  e.id = row.column_int64(0);
  e.endpoint = row.column_text(1) == "payout" ? Endpoint::Payouts : Endpoint::Transfers;
  e.from_account = row.column_int64(2);
  if (!row.column_is_null(3)) e.to_account = row.column_int64(3);
  e.destination = row.column_text(4);
  e.amount = row.column_int64(5);
  e.currency = row.column_text(6);
  e.memo = row.column_text(7);
  e.from_balance_after = row.column_int64(8);
  e.created_at = row.column_int64(9);
  if (!row.column_is_null(10)) e.metadata = row.column_text(10);
  return e;
}

std::optional<Account> read_account(Connection& conn, std::int64_t id) {
  auto row = conn.prepare("SELECT id, client_id, balance, currency FROM accounts WHERE id = ?1");
  if (!row.bind(1, id).step()) return std::nullopt;
  return Account{row.column_int64(0), row.column_int64(1), row.column_int64(2), row.column_text(3)};
}

}  // namespace

nlohmann::json Account::to_json() const {
  return {{"id", id}, {"client_id", client_id}, {"balance", balance}, {"currency", currency}};
}

nlohmann::json LedgerEntry::to_ledger_json() const {
  nlohmann::json j = {{"id", id}, {"kind", kind_of(endpoint)}, {"from_account", from_account}};
  if (endpoint == Endpoint::Transfers)
    j["to_account"] = to_account.value_or(0);
  else
    j["destination"] = destination;
  j["amount"] = amount;
  j["currency"] = currency;
  j["memo"] = memo;
  // Stored as canonical text, which this server wrote itself: parsing it back cannot fail.
  if (metadata) j["metadata"] = nlohmann::json::parse(*metadata);
  j["created_at"] = created_at;
  return j;
}

nlohmann::json LedgerEntry::to_json() const {
  nlohmann::json j = to_ledger_json();
  j["from_balance_after"] = from_balance_after;
  return j;
}

Bank::Bank(Database& db, LabClock& clock) : db_(db), clock_(clock) { db_.exec_script(kSchema); }

Bank::NewClient Bank::create_client(const std::string& name) {
  std::string token = random_token("tok_", kTokenBytes);
  auto tx = db_.begin_write();
  tx.conn()
      .prepare("INSERT INTO clients (name, token_sha256, created_at) VALUES (?1, ?2, ?3)")
      .bind(1, name)
      .bind(2, sha256_hex(token))
      .bind(3, clock_.now_ms())
      .run();
  Client client{tx.conn().last_insert_rowid(), name};
  tx.commit();
  return {client, token};
}

std::optional<Client> Bank::find_client(std::int64_t id) {
  auto row = db_.conn().prepare("SELECT id, name FROM clients WHERE id = ?1");
  if (!row.bind(1, id).step()) return std::nullopt;
  return Client{row.column_int64(0), row.column_text(1)};
}

Account Bank::create_account(std::int64_t client_id, std::int64_t balance, const std::string& currency) {
  auto tx = db_.begin_write();
  tx.conn()
      .prepare("INSERT INTO accounts (client_id, currency, opening_balance, balance, created_at) "
               "VALUES (?1, ?2, ?3, ?3, ?4)")
      .bind(1, client_id)
      .bind(2, currency)
      .bind(3, balance)
      .bind(4, clock_.now_ms())
      .run();
  Account account{tx.conn().last_insert_rowid(), client_id, balance, currency};
  tx.commit();
  return account;
}

std::optional<Client> Bank::authenticate(std::string_view bearer_token) {
  // Only the hash is stored, so a leaked database file leaks no usable token.
  auto row = db_.conn().prepare("SELECT id, name FROM clients WHERE token_sha256 = ?1");
  if (!row.bind(1, sha256_hex(bearer_token)).step()) return std::nullopt;
  return Client{row.column_int64(0), row.column_text(1)};
}

std::optional<Account> Bank::find_account(std::int64_t id) { return read_account(db_.conn(), id); }

MoneyOutcome Bank::move_money(Connection& conn, const Client& client, const MoneyRequest& request) {
  // Lab-Fail: busy (docs/reference/lab-controls.md "Lab controls"): fail here, inside the money's transaction, as SQLite would.
  if (money_fault_armed()) throw DatabaseBusy(kLabFailBusy, "Lab-Fail: busy: the database is busy");
  // On a store where transactions run side by side (PostgreSQL), lock both accounts first, in id order: what
  // is read below cannot then change before this transaction commits (no overdraft by two transfers that both
  // saw the old balance), and two transfers in opposite directions cannot deadlock (40P01). On SQLite the
  // write transaction already holds the whole database (db.h, for_update).
  if (!conn.for_update().empty()) {
    std::int64_t to_id = request.to_account.value_or(request.from_account);
    conn.prepare("SELECT id FROM accounts WHERE id IN (?1, ?2) ORDER BY id" + std::string(conn.for_update()))
        .bind(1, request.from_account)
        .bind(2, to_id)
        .run();
  }
  // Is the source account there, and the caller's? The same 404 either way: existence is not revealed.
  auto from = read_account(conn, request.from_account);
  if (!from || from->client_id != client.id)
    return Problem::Of(ProblemType::NotFound, "no account " + std::to_string(request.from_account));
  std::optional<Account> to;
  if (request.endpoint == Endpoint::Transfers) {
    to = read_account(conn, *request.to_account);
    if (!to) return Problem::Of(ProblemType::NotFound, "no account " + std::to_string(*request.to_account));
  }
  // The source is the caller's own account, so its currency may be named. The target may be anyone's: the
  // refusal itself tells that it does not hold the request's currency, but which one it holds is its owner's
  // business, so the detail does not say.
  if (from->currency != request.currency)
    return Problem::Of(ProblemType::CurrencyMismatch, "the request is in " + request.currency + ", account " +
                                                          std::to_string(from->id) + " holds " + from->currency);
  if (to && to->currency != request.currency)
    return Problem::Of(ProblemType::CurrencyMismatch, "the request is in " + request.currency + ", account " +
                                                          std::to_string(to->id) + " does not hold " +
                                                          request.currency);
  if (from->balance < request.amount)
    return Problem::Of(ProblemType::InsufficientFunds, "account " + std::to_string(from->id) + " holds " +
                                                           std::to_string(from->balance) + ", the amount is " +
                                                           std::to_string(request.amount));
  // Every balance stays at most kMaxMinorUnits, the largest amount a JSON reader holds exactly: a balance past
  // it could not be read back correctly, and enough of them would overflow the bank's totals. Written as a
  // subtraction so that the check itself cannot overflow (amount <= kMaxMinorUnits by validation). The detail
  // names neither the target's balance nor its owner: the target may be another client's account.
  if (to && to->balance > kMaxMinorUnits - request.amount)
    return Problem::Of(ProblemType::BalanceLimit, "account " + std::to_string(to->id) +
                                                      " cannot receive " + std::to_string(request.amount) +
                                                      ": its balance would pass 2^53 - 1");

  // The money moves: debit, credit (transfers only), and the ledger row, all in the caller's transaction.
  LedgerEntry entry;
  entry.endpoint = request.endpoint;
  entry.from_account = from->id;
  entry.to_account = request.to_account;
  entry.destination = request.destination;
  entry.amount = request.amount;
  entry.currency = request.currency;
  entry.memo = request.memo;
  entry.metadata = request.metadata;
  entry.from_balance_after = from->balance - request.amount;
  entry.created_at = clock_.now_ms();
  conn.prepare("UPDATE accounts SET balance = balance - ?1 WHERE id = ?2").bind(1, request.amount).bind(2, from->id).run();
  if (to) conn.prepare("UPDATE accounts SET balance = balance + ?1 WHERE id = ?2").bind(1, request.amount).bind(2, to->id).run();
  conn.prepare("INSERT INTO ledger (kind, from_account, to_account, destination, amount, currency, memo, "
               "from_balance_after, created_at, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
      .bind(1, kind_of(request.endpoint))
      .bind(2, entry.from_account)
      .bind(3, entry.to_account)
      .bind(4, to ? std::optional<std::string>() : std::optional<std::string>(entry.destination))
      .bind(5, entry.amount)
      .bind(6, entry.currency)
      .bind(7, entry.memo)
      .bind(8, entry.from_balance_after)
      .bind(9, entry.created_at)
      .bind(10, entry.metadata)
      .run();
  entry.id = conn.last_insert_rowid();
  return entry;
}

MoneyOutcome Bank::move_money_now(const Client& client, const MoneyRequest& request) {
  auto tx = db_.begin_write();
  MoneyOutcome outcome = move_money(tx.conn(), client, request);
  tx.commit();   // a rejection wrote nothing; committing it is harmless
  return outcome;
}

std::optional<LedgerEntry> Bank::find_entry(Connection& conn, std::int64_t id) {
  auto row = conn.prepare(std::string(kSelectEntry) + " WHERE id = ?1");
  if (!row.bind(1, id).step()) return std::nullopt;
  return entry_from_row(row);
}

std::vector<LedgerEntry> Bank::ledger_page(std::int64_t after_id, int limit) {
  auto rows = db_.conn().prepare(std::string(kSelectEntry) + " WHERE id > ?1 ORDER BY id LIMIT ?2");
  rows.bind(1, after_id).bind(2, limit);
  std::vector<LedgerEntry> page;
  while (rows.step()) page.push_back(entry_from_row(rows));
  return page;
}

// Summed here, row by row in 128 bits, not with SQL's SUM(): SQLite's SUM() of integers fails with "integer
// overflow" past 2^63 - 1, which 1024 accounts at the maximum balance already reach (see MoneySum). One
// statement, so one implicit read transaction: the three sums describe one moment.
Totals Bank::totals() {
  auto rows = db_.conn().prepare(
      "SELECT opening_balance, balance, 0 FROM accounts "
      "UNION ALL SELECT 0, 0, amount FROM ledger WHERE kind = 'payout'");
  Totals totals;
  while (rows.step()) {
    totals.opening += rows.column_int64(0);
    totals.balances += rows.column_int64(1);
    totals.paid_out += rows.column_int64(2);
  }
  return totals;
}

}  // namespace lab
