// refusals.cc: see refusals.h.
#include "grader/checks/refusals.h"

#include "grader/checks/check_helpers.h"

namespace grader {
namespace {

// The largest balance an account may hold (docs/reference/the-bank.md "The bank"): 2^53 - 1 minor units.
constexpr std::int64_t kMaxBalance = (std::int64_t{1} << 53) - 1;

// A currency other than the world's, for a target account the request's currency cannot reach.
std::string other_currency(const World& w) { return w.currency() == "USD" ? "EUR" : "USD"; }

}  // namespace

Refusal set_up_refusal(CheckRun& run, ClientInfo& owner, RefusalKind kind) {
  World& w = run.world();
  Account& from = account_with_random_opening(run, owner);
  Refusal r;
  switch (kind) {
    case RefusalKind::InsufficientFunds: {
      Account& to = w.account(owner, 0);
      const std::int64_t shortfall = run.rng().between(100, 5'000);
      r.intent = &w.transfer(owner, from, to, from.opening + shortfall);
      r.status = 402, r.problem_type = "insufficient-funds", r.cause = "the source account could not pay";
      Account& savings = w.account(owner, shortfall + 10'000);
      r.remove_cause = [&run, &owner, &savings, &from, shortfall] {
        Intent& top_up = run.world().transfer(owner, savings, from, shortfall + 1'000);
        top_up.expect_moves = 1;
        run.expect_status(run.settle(top_up.attempt()), top_up.attempt(), {201});
      };
      break;
    }
    case RefusalKind::NotFound: {
      ClientInfo& stranger = w.client("stranger");
      Account& theirs = account_with_random_opening(run, stranger);
      r.intent = &w.transfer(owner, theirs, from, affordable_amount(run, theirs));
      r.status = 404, r.problem_type = "not-found", r.cause = "the source account was another client's";
      break;
    }
    case RefusalKind::CurrencyMismatch: {
      Account& abroad = w.account(owner, 0, other_currency(w));
      r.intent = &w.transfer(owner, from, abroad, affordable_amount(run, from));
      r.status = 400, r.problem_type = "currency-mismatch", r.cause = "the target account held another currency";
      break;
    }
    case RefusalKind::BalanceLimit: {
      const std::int64_t room = run.rng().between(100, 5'000);
      Account& full = w.account(owner, kMaxBalance - room);
      const std::int64_t amount = room + run.rng().between(1, 1'000);
      r.intent = &w.transfer(owner, from, full, amount);
      r.status = 422, r.problem_type = "balance-limit", r.cause = "the target account's balance would pass 2^53 - 1";
      r.remove_cause = [&run, &owner, &full, amount] {
        Intent& spend = run.world().payout(owner, full, amount);
        spend.expect_moves = 1;
        run.expect_status(run.settle(spend.attempt()), spend.attempt(), {201});
      };
      break;
    }
  }
  r.intent->max_moves = 0;
  r.intent->expect_moves = 0;
  return r;
}

}  // namespace grader
