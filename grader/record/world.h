// world.h: the clients, accounts and intents one check creates, drawn from its seed. docs/teach/grader.md "The grader".
//
// Every check builds its own small bank on the server under test, so checks never share money:
//   World world(api, rng, nonce);
//   auto& alice = world.client("alice");                  // POST /admin/clients, name "alice-<hex>"
//   auto& rent = world.account(alice, 50'000);            // POST /admin/accounts, random currency per world
//   Intent& pay = world.transfer(alice, rent, home, 1'500);   // a fresh key and a memo tag; nothing sent
//   Attempt a = pay.attempt().with_header("Lab-Delay-Ms", "300");
//
// An intent is one thing a client wants done; each attempt at it (the first send, retries, a changed
// body under the same key) is an Attempt. The auditor finds an intent's ledger entries by the tag in its
// memo, so a memo is "<words> #<tag>" with a tag unique to the run.
// Thread safety: none; a World belongs to one check.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "grader/base/rng.h"
#include "grader/wire/lab_api.h"
#include "grader/wire/wire.h"

namespace grader {

struct Account {
  std::int64_t id = 0;
  std::int64_t opening = 0;
  std::string currency;
  std::string owner_token;
};

struct Intent;

// One request to send: an intent's request, possibly changed (another body, no key, a lab header).
struct Attempt {
  const Intent* intent = nullptr;
  std::string path;
  std::string token;  // empty: no Authorization header
  std::string content_type = "application/json";
  std::optional<std::string> key_header;  // the Idempotency-Key header value, sent as is
  Headers extra;                          // lab headers, a second Idempotency-Key line, ...
  std::string body;
  bool lose_response = false;  // close the socket before reading

  Attempt with_header(std::string name, std::string value) const;
  Attempt with_body(std::string new_body) const;
  Attempt with_key_header(std::optional<std::string> value) const;
  Attempt as(std::string other_token) const;
  Attempt with_content_type(std::string type) const;
  Attempt lost() const;
  HttpRequest to_request() const;
};

struct Intent {
  std::string id;     // "i1", "i2", ... within the check
  std::string tag;    // unique in the run; inside the memo
  std::string path;   // "/transfers" or "/payouts"
  std::string token;  // the sending client's bearer token
  std::int64_t from = 0;
  std::int64_t to = 0;      // transfers
  std::string destination;  // payouts
  std::int64_t amount = 0;
  std::string currency;
  std::string memo;
  std::string key;                  // unquoted; sent as the sf-string "\"" + key + "\""
  std::string body;                 // as first sent
  int max_moves = 1;                // ledger entries this intent may produce
  std::optional<int> expect_moves;  // the exact count the check expects at the end, if it judges that
  bool audited = true;              // false: the check judges this intent itself (it shares a body)

  std::string key_header() const { return "\"" + key + "\""; }
  Attempt attempt() const;
};

class World {
 public:
  World(LabApi& api, Rng& rng, std::string nonce) : api_(api), rng_(rng), nonce_(std::move(nonce)) {}

  ClientInfo& client(const std::string& role);
  Account& account(const ClientInfo& owner, std::int64_t balance, std::optional<std::string> currency = {});
  Intent& transfer(const ClientInfo& sender, const Account& from, const Account& to, std::int64_t amount);
  Intent& payout(const ClientInfo& sender, const Account& from, std::int64_t amount);
  std::string new_key();
  std::string new_tag();

  const std::deque<Account>& accounts() const { return accounts_; }
  const std::deque<Intent>& intents() const { return intents_; }
  const std::string& currency() const { return currency_; }

 private:
  // A transfer to `to`, or a payout out of the bank when `to` is null.
  Intent& add_intent(const ClientInfo& sender, const Account& from, const Account* to, std::int64_t amount);

  LabApi& api_;
  Rng& rng_;
  const std::string nonce_;         // makes keys and tags unique per run when the server outlives the run
  std::string currency_;            // drawn once per world
  std::deque<ClientInfo> clients_;  // deque: references stay valid as it grows
  std::deque<Account> accounts_;
  std::deque<Intent> intents_;
};

// The body of a request, compact, members in the contract's order (exposed for tests and checks).
std::string transfer_body(std::int64_t from, std::int64_t to, std::int64_t amount, const std::string& currency,
                          const std::string& memo);
std::string payout_body(std::int64_t from, const std::string& destination, std::int64_t amount,
                        const std::string& currency, const std::string& memo);

}  // namespace grader
