// load_audit.cc: see load_audit.h.
#include "grader/load/load_audit.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "grader/base/parallel.h"
#include "grader/wire/lab_api.h"

namespace grader {
namespace {

// Keys settled at once: each waits on the server, not on the CPU.
constexpr int kSettleJobs = 16;

}  // namespace

std::vector<std::string> settle_open_keys(const Address& server, std::vector<LoadKey>& keys, std::string* note) {
  std::vector<LoadKey*> open;
  for (auto& k : keys)
    if (!k.answer) open.push_back(&k);
  std::vector<std::optional<std::string>> outcome(open.size());
  for_each_in_parallel(open.size(), kSettleJobs,
                       [&](std::size_t i) { outcome[i] = settle_key(server, *open[i], kSettlePatience); });
  std::vector<std::string> failures;
  for (const auto& o : outcome)
    if (o) failures.push_back(*o);
  *note = std::to_string(open.size()) + " keys had no answer after the phases; sent again until answered: " +
          std::to_string(open.size() - failures.size()) + " settled";
  return failures;
}

std::vector<std::string> audit_money(Target& target, const LoadBank& bank, const std::vector<LoadKey>& keys,
                                     std::string* note) {
  LabApi api(target);
  std::vector<std::string> failures;
  std::map<std::string, std::vector<LedgerEntry>> rows_by_memo;
  const std::string tag = "load #" + bank.nonce + ".";
  std::size_t rows = 0;
  for (auto& e : api.ledger_after(0))
    if (e.memo.rfind(tag, 0) == 0) rows_by_memo[e.memo].push_back(std::move(e)), ++rows;
  std::map<std::int64_t, std::int64_t> expected;
  for (const auto& a : bank.accounts) expected[a.id] = a.opening_balance;
  std::size_t accepted = 0;
  for (const auto& k : keys) {
    auto found = rows_by_memo.find(k.memo);
    const std::size_t n = found == rows_by_memo.end() ? 0 : found->second.size();
    if (!k.answer) {
      if (n > 0)
        failures.push_back("key " + k.key + " was never answered 201, yet has " + std::to_string(n) + " ledger rows");
      continue;
    }
    ++accepted;
    expected[k.from] -= k.amount;
    expected[k.to] += k.amount;
    auto id = nlohmann::json::parse(*k.answer, nullptr, false);
    if (n != 1) {
      failures.push_back("key " + k.key + " was answered 201 and has " + std::to_string(n) + " ledger rows");
    } else if (!id.is_object() || id.value("id", std::int64_t{0}) != found->second.front().id) {
      failures.push_back("key " + k.key + "'s 201 names another ledger row than its own: " + *k.answer);
    }
    if (found != rows_by_memo.end()) rows_by_memo.erase(found);
  }
  for (const auto& [memo, entries] : rows_by_memo)
    failures.push_back(std::to_string(entries.size()) + " ledger rows with memo \"" + memo + "\", which no key sent");
  int balances_right = 0;
  for (const auto& a : bank.accounts) {
    const std::int64_t balance = api.account(a.id, a.token).balance;
    if (balance == expected[a.id]) {
      ++balances_right;
    } else {
      failures.push_back("account " + std::to_string(a.id) + " holds " + std::to_string(balance) +
                         "; its opening balance moved by the accepted transfers is " + std::to_string(expected[a.id]));
    }
  }
  *note = std::to_string(keys.size()) + " keys, " + std::to_string(accepted) + " answered 201, " + std::to_string(rows) +
          " ledger rows; " + std::to_string(balances_right) + " of " + std::to_string(bank.accounts.size()) +
          " balances equal the accepted transfers";
  return failures;
}

}  // namespace grader
