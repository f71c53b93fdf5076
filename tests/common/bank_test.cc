// bank_test.cc: the bank moves exactly the money it is asked to, never more, and conserves it.
#include "common/bank.h"

#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "tests/common/temp_dir.h"

using namespace lab;

namespace {

struct BankFixture {
  testing::TempDir dir;
  Database db{dir.file("bank.db")};
  LabClock clock{db};
  Bank bank{db, clock};
  Bank::NewClient alice = bank.create_client("alice");
  Bank::NewClient bob = bank.create_client("bob");
  Account alice_usd = bank.create_account(alice.client.id, 10'000, "USD");
  Account alice_savings = bank.create_account(alice.client.id, 0, "USD");
  Account bob_usd = bank.create_account(bob.client.id, 500, "USD");
  Account alice_eur = bank.create_account(alice.client.id, 1'000, "EUR");

  MoneyRequest transfer(std::int64_t from, std::int64_t to, std::int64_t amount, std::string currency = "USD") {
    MoneyRequest r;
    r.endpoint = Endpoint::Transfers;
    r.from_account = from;
    r.to_account = to;
    r.amount = amount;
    r.currency = std::move(currency);
    r.memo = "test";
    return r;
  }
  MoneyRequest payout(std::int64_t from, std::int64_t amount) {
    MoneyRequest r;
    r.endpoint = Endpoint::Payouts;
    r.from_account = from;
    r.amount = amount;
    r.currency = "USD";
    r.destination = "IBAN DE89 3704 0044 0532 0130 00";
    return r;
  }
  std::int64_t balance(const Account& a) { return bank.find_account(a.id)->balance; }
  ProblemType problem_of(const MoneyOutcome& outcome) {
    REQUIRE(std::holds_alternative<Problem>(outcome));
    return std::get<Problem>(outcome).type;
  }
};

}  // namespace

TEST_CASE_METHOD(BankFixture, "a transfer moves exactly its amount and reports the balance after it", "[bank]") {
  auto outcome = bank.move_money_now(alice.client, transfer(alice_usd.id, bob_usd.id, 1'500));
  REQUIRE(std::holds_alternative<LedgerEntry>(outcome));
  const auto& entry = std::get<LedgerEntry>(outcome);
  CHECK(entry.from_balance_after == 8'500);
  CHECK(balance(alice_usd) == 8'500);
  CHECK(balance(bob_usd) == 2'000);
  CHECK(entry.to_json()["kind"] == "transfer");
  CHECK(bank.ledger_page(0, 10).size() == 1);
  CHECK(bank.totals().conserved());
}

TEST_CASE_METHOD(BankFixture, "a payout takes money out of the bank and is counted as money out", "[bank]") {
  auto outcome = bank.move_money_now(alice.client, payout(alice_usd.id, 2'000));
  REQUIRE(std::holds_alternative<LedgerEntry>(outcome));
  CHECK(balance(alice_usd) == 8'000);
  auto totals = bank.totals();
  CHECK(totals.paid_out == 2'000);
  CHECK(totals.balances == totals.opening - 2'000);
  CHECK(totals.conserved());
  CHECK(std::get<LedgerEntry>(outcome).to_ledger_json()["destination"] == "IBAN DE89 3704 0044 0532 0130 00");
}

TEST_CASE_METHOD(BankFixture, "metadata is stored with the entry, read back and echoed as an object", "[bank]") {
  auto with_metadata = transfer(alice_usd.id, bob_usd.id, 100);
  with_metadata.metadata = R"({"order":"A-17","rate":0.1,"😀":[1,{"n":1e+21}]})";   // canonical, as validation stores it
  auto outcome = bank.move_money_now(alice.client, with_metadata);
  REQUIRE(std::holds_alternative<LedgerEntry>(outcome));
  const auto expected = nlohmann::json::parse(*with_metadata.metadata);
  CHECK(std::get<LedgerEntry>(outcome).to_json()["metadata"] == expected);

  auto stored = bank.ledger_page(0, 10);
  REQUIRE(stored.size() == 1);
  CHECK(stored[0].metadata == with_metadata.metadata);   // the canonical text, byte for byte
  CHECK(stored[0].to_ledger_json()["metadata"] == expected);
  CHECK(bank.find_entry(db.conn(), stored[0].id)->metadata == with_metadata.metadata);
}

TEST_CASE_METHOD(BankFixture, "an entry without metadata has no metadata member", "[bank]") {
  auto outcome = bank.move_money_now(alice.client, transfer(alice_usd.id, bob_usd.id, 100));
  REQUIRE(std::holds_alternative<LedgerEntry>(outcome));
  CHECK_FALSE(std::get<LedgerEntry>(outcome).to_json().contains("metadata"));
  auto stored = bank.ledger_page(0, 10);
  REQUIRE(stored.size() == 1);
  CHECK_FALSE(stored[0].metadata);
  CHECK_FALSE(stored[0].to_ledger_json().contains("metadata"));
}

TEST_CASE_METHOD(BankFixture, "an overdraft is refused with 402 and moves nothing", "[bank]") {
  CHECK(problem_of(bank.move_money_now(alice.client, transfer(alice_usd.id, bob_usd.id, 10'001))) ==
        ProblemType::InsufficientFunds);
  CHECK(balance(alice_usd) == 10'000);
  CHECK(balance(bob_usd) == 500);
  CHECK(bank.ledger_page(0, 10).empty());
}

TEST_CASE_METHOD(BankFixture, "the whole balance can be sent, and not a cent more", "[bank]") {
  CHECK(std::holds_alternative<LedgerEntry>(bank.move_money_now(alice.client, transfer(alice_usd.id, bob_usd.id, 10'000))));
  CHECK(balance(alice_usd) == 0);
  CHECK(problem_of(bank.move_money_now(alice.client, transfer(alice_usd.id, bob_usd.id, 1))) == ProblemType::InsufficientFunds);
}

TEST_CASE_METHOD(BankFixture, "another client's account answers the same 404 as a missing one", "[bank]") {
  auto foreign = bank.move_money_now(bob.client, transfer(alice_usd.id, bob_usd.id, 100));
  auto missing = bank.move_money_now(bob.client, transfer(999, bob_usd.id, 100));
  CHECK(problem_of(foreign) == ProblemType::NotFound);
  CHECK(problem_of(missing) == ProblemType::NotFound);
  CHECK(problem_of(bank.move_money_now(alice.client, transfer(alice_usd.id, 999, 100))) == ProblemType::NotFound);
  CHECK(balance(alice_usd) == 10'000);
}

TEST_CASE_METHOD(BankFixture, "a currency that the accounts do not hold is refused", "[bank]") {
  CHECK(problem_of(bank.move_money_now(alice.client, transfer(alice_usd.id, alice_eur.id, 100))) ==
        ProblemType::CurrencyMismatch);
  CHECK(problem_of(bank.move_money_now(alice.client, transfer(alice_usd.id, bob_usd.id, 100, "EUR"))) ==
        ProblemType::CurrencyMismatch);
}

TEST_CASE_METHOD(BankFixture, "a token authenticates its client and only the hash is stored", "[bank]") {
  auto who = bank.authenticate(alice.token);
  REQUIRE(who);
  CHECK(who->id == alice.client.id);
  CHECK_FALSE(bank.authenticate("tok_not_a_real_token"));
  auto row = db.conn().prepare("SELECT COUNT(*) FROM clients WHERE token_sha256 = ?1");
  row.bind(1, alice.token).step();
  CHECK(row.column_int64(0) == 0);
}

TEST_CASE_METHOD(BankFixture, "8 threads of concurrent distinct transfers all apply and conserve money", "[bank][concurrency]") {
  constexpr int kThreads = 8;
  constexpr int kTransfersPerThread = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTransfersPerThread; ++i) {
        // Alternate directions between alice's two accounts and bob, so rows contend.
        auto request = t % 2 == 0 ? transfer(alice_usd.id, alice_savings.id, 10) : transfer(alice_usd.id, bob_usd.id, 10);
        bank.move_money_now(alice.client, request);
      }
    });
  for (auto& thread : threads) thread.join();
  CHECK(balance(alice_usd) == 10'000 - kThreads * kTransfersPerThread * 10);
  CHECK(balance(alice_savings) + balance(bob_usd) == 500 + kThreads * kTransfersPerThread * 10);
  CHECK(bank.ledger_page(0, 1000).size() == kThreads * kTransfersPerThread);
  CHECK(bank.totals().conserved());
}

// Balances are capped at kMaxMinorUnits (2^53 - 1, the largest integer every JSON reader holds exactly). A
// credit that would pass the cap is refused like a 402: nothing moves, and the ledger gets no row.
TEST_CASE_METHOD(BankFixture, "a transfer that would take the target past the maximum balance is refused", "[bank]") {
  Account full = bank.create_account(bob.client.id, kMaxMinorUnits, "USD");
  auto outcome = bank.move_money_now(alice.client, transfer(alice_usd.id, full.id, 1));
  CHECK(problem_of(outcome) == ProblemType::BalanceLimit);
  CHECK(std::get<Problem>(outcome).status() == 422);
  CHECK(balance(full) == kMaxMinorUnits);
  CHECK(balance(alice_usd) == 10'000);
  CHECK(bank.ledger_page(0, 10).empty());
  // Up to the cap exactly is fine.
  Account almost = bank.create_account(bob.client.id, kMaxMinorUnits - 100, "USD");
  REQUIRE(std::holds_alternative<LedgerEntry>(bank.move_money_now(alice.client, transfer(alice_usd.id, almost.id, 100))));
  CHECK(balance(almost) == kMaxMinorUnits);
  CHECK(bank.totals().conserved());
}

// 1025 accounts at 2^53 - 1 hold more than 2^63 - 1 between them: SQLite's SUM() would fail with "integer
// overflow". Bank::totals must still add them up exactly.
TEST_CASE_METHOD(BankFixture, "totals add up balances whose sum passes 2^63 - 1", "[bank]") {
  constexpr int kFullAccounts = 1025;
  {
    auto tx = db.begin_write();   // one transaction, not 1025: the rows are what matters, not how they came
    for (int i = 0; i < kFullAccounts; ++i)
      tx.conn()
          .prepare("INSERT INTO accounts (client_id, currency, opening_balance, balance, created_at) "
                   "VALUES (?1, 'USD', ?2, ?2, 0)")
          .bind(1, bob.client.id)
          .bind(2, kMaxMinorUnits)
          .run();
    tx.commit();
  }
  Totals totals;
  REQUIRE_NOTHROW(totals = bank.totals());
  CHECK(totals.conserved());
  const MoneySum small_accounts = 10'000 + 0 + 500 + 1'000;
  CHECK(totals.opening == small_accounts + MoneySum{kFullAccounts} * kMaxMinorUnits);
  CHECK(totals.balances == totals.opening);
}
