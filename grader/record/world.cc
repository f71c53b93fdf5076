// world.cc: see world.h.
#include "grader/record/world.h"

#include <nlohmann/json.hpp>

namespace grader {
namespace {

// Currencies a world may use: any three upper-case letters are valid; these read naturally.
constexpr const char* kCurrencies[] = {"USD", "EUR", "GBP", "CHF", "JPY", "SEK"};
// Memo words, so memos read like payments in a history.
constexpr const char* kMemoWords[] = {"rent", "groceries", "invoice", "refund", "salary", "gift", "tuition"};
constexpr int kTagHexChars = 10;
constexpr int kKeyHexChars = 24;

}  // namespace

Attempt Attempt::with_header(std::string name, std::string value) const {
  Attempt a = *this;
  a.extra.emplace_back(std::move(name), std::move(value));
  return a;
}
Attempt Attempt::with_body(std::string new_body) const {
  Attempt a = *this;
  a.body = std::move(new_body);
  return a;
}
Attempt Attempt::with_key_header(std::optional<std::string> value) const {
  Attempt a = *this;
  a.key_header = std::move(value);
  return a;
}
Attempt Attempt::as(std::string other_token) const {
  Attempt a = *this;
  a.token = std::move(other_token);
  return a;
}
Attempt Attempt::with_content_type(std::string type) const {
  Attempt a = *this;
  a.content_type = std::move(type);
  return a;
}
Attempt Attempt::lost() const {
  Attempt a = *this;
  a.lose_response = true;
  return a;
}

HttpRequest Attempt::to_request() const {
  HttpRequest req{"POST", path, {}, body};
  if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
  if (!content_type.empty()) req.headers.emplace_back("Content-Type", content_type);
  if (key_header) req.headers.emplace_back("Idempotency-Key", *key_header);
  for (const auto& h : extra) req.headers.push_back(h);
  return req;
}

Attempt Intent::attempt() const {
  Attempt a;
  a.intent = this;
  a.path = path;
  a.token = token;
  a.key_header = key_header();
  a.body = body;
  return a;
}

std::string transfer_body(std::int64_t from, std::int64_t to, std::int64_t amount, const std::string& currency,
                          const std::string& memo) {
  nlohmann::ordered_json j = {
      {"from_account", from}, {"to_account", to}, {"amount", amount}, {"currency", currency}, {"memo", memo}};
  return j.dump();
}

std::string payout_body(std::int64_t from, const std::string& destination, std::int64_t amount,
                        const std::string& currency, const std::string& memo) {
  nlohmann::ordered_json j = {
      {"from_account", from}, {"destination", destination}, {"amount", amount}, {"currency", currency}, {"memo", memo}};
  return j.dump();
}

std::string World::new_key() { return "k-" + nonce_ + rng_.hex(kKeyHexChars); }
std::string World::new_tag() { return "g" + nonce_ + rng_.hex(kTagHexChars); }

ClientInfo& World::client(const std::string& role) {
  clients_.push_back(api_.create_client(role + "-" + rng_.hex(6)));
  return clients_.back();
}

Account& World::account(const ClientInfo& owner, std::int64_t balance, std::optional<std::string> currency) {
  if (currency_.empty()) currency_ = kCurrencies[rng_.between(0, std::size(kCurrencies) - 1)];
  auto info = api_.create_account(owner.id, balance, currency.value_or(currency_));
  accounts_.push_back(Account{info.id, balance, info.currency, owner.token});
  return accounts_.back();
}

Intent& World::transfer(const ClientInfo& sender, const Account& from, const Account& to, std::int64_t amount) {
  return add_intent(sender, from, &to, amount);
}

Intent& World::payout(const ClientInfo& sender, const Account& from, std::int64_t amount) {
  return add_intent(sender, from, nullptr, amount);
}

// The random draws keep one order, tag, destination (payouts only), memo word, key: the same seed must give
// the same inputs (grader/base/rng.h), and drawing in another order would change them.
Intent& World::add_intent(const ClientInfo& sender, const Account& from, const Account* to, std::int64_t amount) {
  Intent i;
  i.id = "i" + std::to_string(intents_.size() + 1);
  i.tag = new_tag();
  i.path = to ? "/transfers" : "/payouts";
  i.token = sender.token;
  i.from = from.id;
  if (to)
    i.to = to->id;
  else
    i.destination = "DE89370400440532013" + std::to_string(rng_.between(100, 999));
  i.amount = amount;
  i.currency = from.currency;
  i.memo = std::string(kMemoWords[rng_.between(0, std::size(kMemoWords) - 1)]) + " #" + i.tag;
  i.key = new_key();
  i.body = to ? transfer_body(i.from, i.to, i.amount, i.currency, i.memo)
              : payout_body(i.from, i.destination, i.amount, i.currency, i.memo);
  intents_.push_back(std::move(i));
  return intents_.back();
}

}  // namespace grader
