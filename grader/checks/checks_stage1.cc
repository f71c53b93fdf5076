// checks_stage1.cc: stage 1, the bank itself. docs/reference/the-bank.md "The bank", docs/reference/http-contract.md "Status codes and their order".
//
// These hold for every stage: money moves by exactly the amount asked, invalid requests move nothing and
// get their problem type, and concurrent distinct requests all apply. Every request carries a fresh valid
// Idempotency-Key, so a stage 2+ server passes them too.
#include <thread>

#include "grader/checks/check_helpers.h"

namespace grader {
namespace {

constexpr int kDistinctBurst = 32;

void transfer_moves_amount(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  const Attempt a = pay.attempt();
  Exchange x = run.settle(a);
  run.expect_status(x, a, {201});
  for (auto [account, want] : {std::pair{from, from->opening - pay.amount}, std::pair{to, to->opening + pay.amount}}) {
    auto now = run.api().account(account->id, alice->token).balance;
    if (now != want)
      run.fail(Anomaly::BalanceDrift,
               "account " + std::to_string(account->id) + " holds " + std::to_string(now) + ", expected " +
                   std::to_string(want),
               &a, &x);
  }
}

void payout_moves_amount(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  (void)to;
  Intent& out = run.world().payout(*alice, *from, affordable_amount(run, *from));
  out.expect_moves = 1;
  const Attempt a = out.attempt();
  Exchange x = run.settle(a);
  run.expect_status(x, a, {201});
  auto now = run.api().account(from->id, alice->token).balance;
  if (now != from->opening - out.amount)
    run.fail(Anomaly::BalanceDrift,
             "account " + std::to_string(from->id) + " holds " + std::to_string(now) + ", expected " +
                 std::to_string(from->opening - out.amount),
             &a, &x);
}

struct InvalidCase {
  const char* what;
  int status;
  const char* problem;
  std::function<Attempt(const Intent&, const Account& other_currency)> make;
};

// Replaces the first occurrence of `from` in the body.
Attempt edited(const Intent& i, const std::string& from, const std::string& to) {
  std::string body = i.body;
  body.replace(body.find(from), from.size(), to);
  return i.attempt().with_body(body);
}

std::vector<InvalidCase> invalid_cases() {
  auto amount = [](const Intent& i) { return "\"amount\":" + std::to_string(i.amount); };
  return {
      {"a body that is not application/json", 415, "unsupported-media-type",
       [](const Intent& i, const Account&) { return i.attempt().with_content_type("text/plain"); }},
      {"a body over 16 KiB", 413, "body-too-large",
       [](const Intent& i, const Account&) {
         return i.attempt().with_body(i.body + std::string(kBodyLimitBytes, ' '));
       }},
      {"a body cut short", 400, "json-syntax",
       [](const Intent& i, const Account&) { return i.attempt().with_body(i.body.substr(0, i.body.size() / 2)); }},
      {"trailing text after the JSON", 400, "json-syntax",
       [](const Intent& i, const Account&) { return i.attempt().with_body(i.body + " x"); }},
      {"bytes that are not UTF-8 in the memo", 400, "json-invalid-utf8",
       [](const Intent& i, const Account&) { return edited(i, "#", "\xff#"); }},
      {"a lone surrogate in the memo", 400, "json-lone-surrogate",
       [](const Intent& i, const Account&) { return edited(i, "#", "\\ud800#"); }},
      {"a number beyond a double's range", 400, "json-number-out-of-range",
       [amount](const Intent& i, const Account&) { return edited(i, amount(i), "\"amount\":1e400"); }},
      {"nesting deeper than 64", 400, "json-too-deep",
       [](const Intent& i, const Account&) {
         return edited(i, "\"currency\"", "\"deep\":" + std::string(70, '[') + std::string(70, ']') + ",\"currency\"");
       }},
      {"amount 0", 400, "invalid-field",
       [amount](const Intent& i, const Account&) { return edited(i, amount(i), "\"amount\":0"); }},
      {"a negative amount", 400, "invalid-field",
       [amount](const Intent& i, const Account&) {
         return edited(i, amount(i), "\"amount\":-" + std::to_string(i.amount));
       }},
      {"amount 10.5 (money is counted)", 400, "invalid-field",
       [amount](const Intent& i, const Account&) { return edited(i, amount(i), "\"amount\":10.5"); }},
      {"amount 1e16 (2^53 - 1 is the largest, in any spelling)", 400, "invalid-field",
       [amount](const Intent& i, const Account&) { return edited(i, amount(i), "\"amount\":1e16"); }},
      {"amount 0.0", 400, "invalid-field",
       [amount](const Intent& i, const Account&) { return edited(i, amount(i), "\"amount\":0.0"); }},
      {"amount as a string", 400, "invalid-field",
       [amount](const Intent& i, const Account&) {
         return edited(i, amount(i), "\"amount\":\"" + std::to_string(i.amount) + "\"");
       }},
      {"amount 2^53", 400, "invalid-field",
       [amount](const Intent& i, const Account&) { return edited(i, amount(i), "\"amount\":9007199254740992"); }},
      {"no amount", 400, "invalid-field",
       [amount](const Intent& i, const Account&) { return edited(i, amount(i) + ",", ""); }},
      {"a misspelt member \"ammount\"", 400, "invalid-field",
       [](const Intent& i, const Account&) { return edited(i, "\"amount\"", "\"ammount\""); }},
      {"to_account equal to from_account", 400, "invalid-field",
       [](const Intent& i, const Account&) {
         return edited(i, "\"to_account\":" + std::to_string(i.to), "\"to_account\":" + std::to_string(i.from));
       }},
      {"no to_account", 400, "invalid-field",
       [](const Intent& i, const Account&) { return edited(i, "\"to_account\":" + std::to_string(i.to) + ",", ""); }},
      {"a lower-case currency", 400, "invalid-field",
       [](const Intent& i, const Account&) { return edited(i, "\"" + i.currency + "\"", "\"usd\""); }},
      {"a memo of 201 bytes", 400, "invalid-field",
       [](const Intent& i, const Account&) { return edited(i, "\"memo\":\"", "\"memo\":\"" + std::string(201, 'm')); }},
      {"metadata that is not an object", 400, "invalid-field",
       [](const Intent& i, const Account&) { return edited(i, "\"memo\"", "\"metadata\":[\"order 17\"],\"memo\""); }},
      {"metadata with a key of 41 characters", 400, "invalid-field",
       [](const Intent& i, const Account&) {
         return edited(i, "\"memo\"", "\"metadata\":{\"" + std::string(41, 'k') + "\":1},\"memo\"");
       }},
      {"metadata nested 4 levels deep", 400, "invalid-field",
       [](const Intent& i, const Account&) { return edited(i, "\"memo\"", "\"metadata\":{\"a\":[[[1]]]},\"memo\""); }},
      {"a JSON array instead of an object", 400, "invalid-field",
       [](const Intent& i, const Account&) { return i.attempt().with_body("[" + i.body + "]"); }},
      {"an account that does not exist", 404, "not-found",
       [](const Intent& i, const Account&) {
         return edited(i, "\"to_account\":" + std::to_string(i.to),
                       "\"to_account\":" + std::to_string(i.to + 9'000'000));
       }},
      {"accounts that do not hold the currency", 400, "currency-mismatch",
       [](const Intent& i, const Account& other) {
         return edited(i, "\"to_account\":" + std::to_string(i.to), "\"to_account\":" + std::to_string(other.id));
       }},
  };
}

void invalid_requests(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  // An account of alice's in another currency, for the currency mismatch.
  Account& other = run.world().account(*alice, 5'000, run.world().currency() == "JPY" ? "USD" : "JPY");
  for (const auto& c : invalid_cases()) {
    Intent& i = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    i.max_moves = 0;
    Attempt a = c.make(i, other);
    Exchange x = run.settle(a);
    if (!run.expect_status(x, a, {c.status}, c.problem)) run.add_to_last_finding(" (" + std::string(c.what) + ")");
  }
  // Payouts have their own fields.
  using PayoutEdit = std::function<Attempt(const Intent&)>;
  const std::pair<const char*, PayoutEdit> payout_cases[] = {
      {"an empty destination",
       [](const Intent& p) { return edited(p, "\"destination\":\"" + p.destination + "\"", "\"destination\":\"\""); }},
      {"a to_account in a payout",
       [](const Intent& p) { return edited(p, "\"amount\"", "\"to_account\":1,\"amount\""); }},
  };
  for (const auto& [what, edit] : payout_cases) {
    Intent& p = run.world().payout(*alice, *from, affordable_amount(run, *from));
    p.max_moves = 0;
    Attempt a = edit(p);
    Exchange x = run.settle(a);
    if (!run.expect_status(x, a, {400}, "invalid-field")) run.add_to_last_finding(std::string(" (") + what + ")");
  }
}

void overdraft(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& big = run.world().transfer(*alice, *from, *to, from->opening + run.rng().between(1, 10'000));
  big.max_moves = 0;
  run.expect_status(run.settle(big.attempt()), big.attempt(), {402}, "insufficient-funds");
}

void unauthorized(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  for (const char* token : {"", "tok_not-a-real-token"}) {
    Intent& i = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    i.max_moves = 0;
    Attempt a = i.attempt().as(token);
    Exchange x = run.settle(a);
    if (run.expect_status(x, a, {401}, "unauthorized") &&
        x.response->header("WWW-Authenticate").value_or("").rfind("Bearer", 0) != 0)
      run.fail(Anomaly::ContractShape, "401 without \"WWW-Authenticate: Bearer\"", &a, &x);
  }
}

void foreign_account(CheckRun& run) {
  auto [alice, a1, a2] = client_with_two_accounts(run, "alice");
  auto [bob, b1, b2] = client_with_two_accounts(run, "bob");
  (void)a2;
  (void)b2;
  // Alice names bob's account as the source: it must look exactly like a missing account.
  Intent& steal = run.world().transfer(*alice, *b1, *a1, affordable_amount(run, *b1));
  steal.max_moves = 0;
  run.expect_status(run.settle(steal.attempt()), steal.attempt(), {404}, "not-found");
  auto res = run.api().as_client(alice->token, "GET", "/accounts/" + std::to_string(b1->id));
  if (res.status != 404 || problem_type_of(res) != "not-found")
    run.fail(Anomaly::WrongStatus, "GET /accounts/" + std::to_string(b1->id) +
                                       " with another client's token answered " + std::to_string(res.status) +
                                       ", expected 404 not-found");
}

void concurrent_distinct(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  std::vector<Attempt> attempts;
  for (int n = 0; n < kDistinctBurst; ++n) {
    Intent& i =
        run.world().transfer(*alice, *(n % 2 ? from : to), *(n % 2 ? to : from), affordable_amount(run, *from) / 4 + 1);
    i.expect_moves = 1;
    attempts.push_back(i.attempt());
  }
  auto results = run.send_simultaneously(attempts);
  for (std::size_t n = 0; n < results.size(); ++n) {
    Exchange x = results[n];
    if (!is_success(x)) x = run.settle(attempts[n]);  // 503 or no response: a client retries
    run.expect_status(x, attempts[n], {201});
  }
}

void conservation(CheckRun& run) {
  auto& w = run.world();
  std::vector<TwoAccounts> clients;
  for (const char* role : {"alice", "bob", "carol"}) clients.push_back(client_with_two_accounts(run, role));
  std::vector<Account*> all;
  for (auto& c : clients) all.insert(all.end(), {c.from, c.to});
  std::vector<Attempt> attempts;
  for (int n = 0; n < 12; ++n) {
    auto& c = clients[n % clients.size()];
    Account* source = n % 4 == 3 ? c.to : c.from;
    Account* target = all[run.rng().between(0, all.size() - 1)];
    // Now and then more than the source holds: refused requests must not move money either.
    std::int64_t amount = n % 5 == 4 ? source->opening * 2 : affordable_amount(run, *source);
    Intent& i = (target == source || n % 3 == 0) ? w.payout(*c.owner, *source, amount)
                                                 : w.transfer(*c.owner, *source, *target, amount);
    if (amount > source->opening) i.max_moves = 0;
    attempts.push_back(i.attempt());
  }
  auto results = run.send_simultaneously(attempts);
  for (std::size_t n = 0; n < results.size(); ++n)
    if (!results[n].response || results[n].response->status == 503) run.settle(attempts[n]);
  // The auditor's rules B2 and B3 judge the balances; nothing else is needed here.
}

}  // namespace

std::vector<Check> stage1_checks() {
  return {
      {.name = "stage1.transfer-moves-amount",
       .stage = 1,
       .title = "a transfer moves exactly its amount",
       .teaches = stage_chapter(1),
       .hint = "debit from_account and credit to_account by amount, in one transaction",
       .needs = Needs::Nothing,
       .run = transfer_moves_amount},
      {.name = "stage1.payout-moves-amount",
       .stage = 1,
       .title = "a payout moves exactly its amount out of the bank",
       .teaches = {"docs/reference/http-contract.md", "Client endpoints (client token)"},
       .hint = "debit from_account by amount; the money leaves the bank",
       .needs = Needs::Nothing,
       .run = payout_moves_amount},
      {.name = "stage1.invalid-requests",
       .stage = 1,
       .title = "every invalid request gets its 4xx problem+json and moves nothing",
       .teaches = {"docs/reference/http-contract.md", "Status codes and their order"},
       .hint = "validate the whole body before anything moves; see the problem registry",
       .needs = Needs::Nothing,
       .run = invalid_requests},
      {.name = "stage1.overdraft",
       .stage = 1,
       .title = "an overdraft gets 402 and moves nothing",
       .teaches = {"docs/reference/the-bank.md", "The bank"},
       .hint = "check the balance inside the write transaction; 402 /problems/insufficient-funds",
       .needs = Needs::Nothing,
       .run = overdraft},
      {.name = "stage1.no-token",
       .stage = 1,
       .title = "a request without a valid token gets 401 and moves nothing",
       .teaches = {"docs/reference/http-contract.md", "Authentication"},
       .hint = "authenticate before anything else",
       .needs = Needs::Nothing,
       .run = unauthorized},
      {.name = "stage1.foreign-account",
       .stage = 1,
       .title = "another client's account is 404 and moves nothing",
       .teaches = {"docs/reference/http-contract.md", "Status codes and their order"},
       .hint = "an account the caller does not own answers like a missing one",
       .needs = Needs::Nothing,
       .run = foreign_account},
      {.name = "stage1.concurrent-distinct",
       .stage = 1,
       .title = "32 simultaneous distinct transfers all apply",
       .teaches = {"docs/reference/plumbing.md", "HTTP"},
       .hint = "serve requests concurrently; a busy database is 503, never a lost transfer",
       .needs = Needs::Nothing,
       .run = concurrent_distinct},
      {.name = "stage1.conservation",
       .stage = 1,
       .title = "money is conserved across a mixed burst",
       .teaches = {"docs/reference/the-bank.md", "The bank"},
       .hint = "balances plus payouts always equal the opening balances",
       .needs = Needs::Nothing,
       .run = conservation},
  };
}

}  // namespace grader
