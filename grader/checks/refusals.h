// refusals.h: the bank's refusals a check causes on purpose, each set up so that it is refused, and, where
// the world allows, with the step that removes its cause. docs/learn/stage-5-replay.md "Stage 5: replay the stored response" (what
// is stored) and "The bank" (the refusals).
//
//   Refusal r = set_up_refusal(run, *alice, RefusalKind::BalanceLimit);
//   Exchange first = run.settle(r.intent->attempt());    // 422 balance-limit, stored with the key
//   if (r.remove_cause) r.remove_cause();                 // the target spends: the credit would fit now
//   Exchange again = run.settle(r.intent->attempt());     // still the stored 422, replayed
//
// Every outcome the bank completes a key with besides 201 is one of these, so a check that goes through
// kRefusalKinds probes each stored refusal once.
#pragma once

#include <functional>
#include <string>

#include "grader/checks/check_run.h"

namespace grader {

enum class RefusalKind {
  InsufficientFunds,  // 402: the source cannot pay; a top-up removes the cause
  NotFound,           // 404: the source is another client's account; that stays so
  CurrencyMismatch,   // 400: the target holds another currency; an account's currency never changes
  BalanceLimit,       // 422: the target's balance would pass 2^53 - 1; the target spends, and the credit fits
};
inline constexpr RefusalKind kRefusalKinds[] = {RefusalKind::InsufficientFunds, RefusalKind::NotFound,
                                                RefusalKind::CurrencyMismatch, RefusalKind::BalanceLimit};

struct Refusal {
  Intent* intent = nullptr;  // the refused transfer, not sent yet; max_moves 0
  int status = 0;
  std::string problem_type;  // "insufficient-funds"
  std::string cause;         // for findings: "the source account cannot pay"
  // Removes the cause (recorded requests, judged by the auditor), so the same request would now succeed if it
  // ran again; empty when the cause cannot be removed.
  std::function<void()> remove_cause;
};

// A transfer by `owner` that the bank refuses for `kind`, with the accounts it needs (new ones, in this world).
Refusal set_up_refusal(CheckRun& run, ClientInfo& owner, RefusalKind kind);

}  // namespace grader
