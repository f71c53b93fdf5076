// bank.h: the bank the contract describes: clients, accounts, one ledger, and the business's verdict on a
// valid money request. docs/reference/the-bank.md; docs/reference/http-contract.md "Status codes and their
// order" (steps 5-9: 404, 400 currency-mismatch, 402, 422 balance-limit, 201).
//
//   BankVerdict v = bank.decide(client_id, request);   // what the bank answers, nothing moved
//   if (v.status == 201) bank.move(request);            // the money moves: one ledger entry
//
// Ids are the server's (learnt from its answers): the contract does not fix them. Money is conserved: the
// balances plus the payouts equal the opening balances, and no balance goes below 0 or above 2^53 - 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grader/model/money_request.h"

namespace grader::model {

struct Client {
  std::int64_t id = 0;
  std::string token;
};

struct Account {
  std::int64_t id = 0, client = 0, balance = 0;
  std::string currency;
};

struct Entry {
  MoneyRequest request;
  std::int64_t from_balance_after = 0;
  std::optional<std::int64_t> id;  // the server's id, once an answer named it
};

struct BankVerdict {
  int status = 201;      // 201, 404, 400 (currency-mismatch), 402, 422 (balance-limit)
  std::string problem;   // the refusal's slug
  std::int64_t from_balance_after = 0;  // 201
};

struct Bank {
  std::vector<Client> clients;
  std::vector<Account> accounts;
  std::vector<Entry> ledger;

  const Client* client_with_token(const std::string& token) const;
  const Account* account(std::int64_t id) const;
  BankVerdict decide(std::int64_t client, const MoneyRequest& request) const;
  std::size_t move(const MoneyRequest& request);  // the new entry's index; only after decide() said 201
};

}  // namespace grader::model
