// bank.cc: the bank's verdicts in the contract's order, and the money's move (bank.h).
#include "grader/model/bank.h"

namespace grader::model {

const Client* Bank::client_with_token(const std::string& token) const {
  for (const Client& c : clients)
    if (c.token == token) return &c;
  return nullptr;
}

const Account* Bank::account(std::int64_t id) const {
  for (const Account& a : accounts)
    if (a.id == id) return &a;
  return nullptr;
}

BankVerdict Bank::decide(std::int64_t client, const MoneyRequest& r) const {
  const Account* from = account(r.from);
  const Account* to = r.endpoint == Endpoint::Transfers ? account(r.to) : nullptr;
  // 5. One 404 for an unknown account and for another client's: a client cannot probe which exist.
  if (from == nullptr || from->client != client) return {404, "not-found", 0};
  if (r.endpoint == Endpoint::Transfers && to == nullptr) return {404, "not-found", 0};
  // 6.
  if (from->currency != r.currency || (to != nullptr && to->currency != r.currency)) return {400, "currency-mismatch", 0};
  // 7. The schema's CHECK (balance >= 0) stands behind this one.
  if (from->balance < r.amount) return {402, "insufficient-funds", 0};
  // 8. Transfers only: a payout credits no account.
  if (to != nullptr && to->balance > kMaxMoney - r.amount) return {422, "balance-limit", 0};
  return {201, "", from->balance - r.amount};
}

std::size_t Bank::move(const MoneyRequest& r) {
  std::int64_t after = 0;
  for (Account& a : accounts) {
    if (a.id == r.from) { a.balance -= r.amount; after = a.balance; }
    if (r.endpoint == Endpoint::Transfers && a.id == r.to) a.balance += r.amount;
  }
  ledger.push_back(Entry{.request = r, .from_balance_after = after, .id = std::nullopt});
  return ledger.size() - 1;
}

}  // namespace grader::model
