// bank.h: the bank every stage moves money in. docs/reference/the-bank.md "The bank".
//
// Clients (with hashed bearer tokens), their accounts, and one ledger of money movements: a transfer
// moves money between two accounts of the bank, a payout sends it out of the bank to a destination.
// Amounts are integers in minor units. Money is conserved: the sum of balances plus all payouts always
// equals the sum of opening balances (Bank::totals checks it).
//
//   Bank bank(db, clock);
//   auto [client, token] = bank.create_client("alice");
//   auto account = bank.create_account(client.id, 10'000, "USD");
//   auto tx = db.begin_write();
//   MoneyOutcome outcome = bank.move_money(tx.conn(), client, request);   // 201 entry, or 404/400/402 problem
//   tx.commit();
//
// move_money runs inside the caller's transaction, so stage 4 can commit the money together with the
// key's completion. Thread safety: all methods may be called from any handler thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/db.h"
#include "common/lab_clock.h"
#include "common/money_request.h"
#include "common/problem.h"

namespace lab {

struct Client {
  std::int64_t id = 0;
  std::string name;
};

struct Account {
  std::int64_t id = 0;
  std::int64_t client_id = 0;
  std::int64_t balance = 0;
  std::string currency;
  nlohmann::json to_json() const;   // {"id","client_id","balance","currency"}
};

// One row of the ledger: what a 201 describes.
struct LedgerEntry {
  std::int64_t id = 0;
  Endpoint endpoint = Endpoint::Transfers;
  std::int64_t from_account = 0;
  std::optional<std::int64_t> to_account;
  std::string destination;
  std::int64_t amount = 0;
  std::string currency;
  std::string memo;
  std::optional<std::string> metadata;   // RFC 8785 text of the request's metadata; absent: none was sent
  std::int64_t from_balance_after = 0;
  std::int64_t created_at = 0;   // lab clock, Unix milliseconds
  nlohmann::json to_json() const;   // the 201 body: the entry with from_balance_after
  nlohmann::json to_ledger_json() const;   // GET /admin/ledger: the entry without from_balance_after
};

// What a money request ends in: the created entry (201) or a business problem (404, 400, 402, 422).
using MoneyOutcome = std::variant<LedgerEntry, Problem>;
// Every problem move_money can answer instead of a ledger entry (bank.cc). Each is a settled outcome: from
// stage 4 on it completes the key like a 201 does, and GET /idempotency-policy lists their statuses.
inline constexpr ProblemType kMoneyProblems[] = {ProblemType::NotFound, ProblemType::CurrencyMismatch,
                                                 ProblemType::InsufficientFunds, ProblemType::BalanceLimit};

// A sum of many amounts. Each balance is at most kMaxMinorUnits (2^53 - 1), so 1024 full accounts already
// pass 2^63 - 1: an int64_t (and SQLite's SUM(), which fails with "integer overflow") cannot hold the total.
// 128 bits hold the sum of 2^63 such values, more rows than SQLite can store.
using MoneySum = __int128;

struct Totals {
  MoneySum opening = 0;    // sum of opening balances
  MoneySum balances = 0;   // sum of current balances
  MoneySum paid_out = 0;   // sum of payouts
  bool conserved() const { return balances + paid_out == opening; }
};

class Bank {
 public:
  Bank(Database& db, LabClock& clock);   // creates the bank's tables if needed

  struct NewClient {
    Client client;
    std::string token;   // shown once; only its SHA-256 is stored
  };
  NewClient create_client(const std::string& name);
  std::optional<Client> find_client(std::int64_t id);
  Account create_account(std::int64_t client_id, std::int64_t balance, const std::string& currency);
  std::optional<Client> authenticate(std::string_view bearer_token);
  std::optional<Account> find_account(std::int64_t id);

  // The business step of a request, in the contract's order: 404 unknown or foreign source account,
  // 404 unknown target account, 400 currency mismatch, 402 insufficient funds, 422 balance limit (the
  // credit would take the target past kMaxMinorUnits), else the money moves.
  // Runs in the caller's write transaction (conn must be that transaction's connection).
  MoneyOutcome move_money(Connection& conn, const Client& client, const MoneyRequest& request);
  // Convenience for stages with no key to commit alongside: its own write transaction.
  MoneyOutcome move_money_now(const Client& client, const MoneyRequest& request);

  std::optional<LedgerEntry> find_entry(Connection& conn, std::int64_t id);
  std::vector<LedgerEntry> ledger_page(std::int64_t after_id, int limit);
  Totals totals();

 private:
  Database& db_;
  LabClock& clock_;
};

}  // namespace lab
