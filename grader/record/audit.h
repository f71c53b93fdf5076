// audit.h: judges a finished check from its history and the ledger, as Jepsen's checkers do.
// docs/teach/grader.md "The grader" (how it observes).
//
//   std::vector<Finding> findings = audit(world.intents(), world.accounts(), history.of_check(check.name),
//                                         api.ledger_after(ledger_start), balances_now);
//
// What it asserts, for every audited intent of the world (rules numbered as in the output):
//   A1 money moved at most max_moves times                         (double-apply)
//   A2 money moved when a client was told success (any 2xx)        (lost-write)
//   A3 a success was not reported before the money was in the ledger: an "observe" event right after an
//      ok saw no entry, yet one came later                          (in-flight-lie)
//   A4 money moved exactly expect_moves times, when the check says  (not-executed / double-apply)
//   A5 each entry is what its intent asked for (amount, accounts, currency, kind)
// and for the world's accounts:
//   B1 no entry touches them that no intent explains                (unexplained-entry)
//   B2 each balance is its opening balance plus what the ledger moved in and out  (balance-drift)
//   B3 the money is conserved: balances plus payouts equal the opening balances   (balance-drift)
// It is a pure function of its inputs, so tests feed it made-up histories.
#pragma once

#include <map>
#include <vector>

#include "grader/record/anomaly.h"
#include "grader/record/history.h"
#include "grader/record/world.h"
#include "grader/wire/lab_api.h"

namespace grader {

using Balances = std::map<std::int64_t, std::int64_t>;  // account id -> balance now

std::vector<Finding> audit(const std::deque<Intent>& intents, const std::deque<Account>& accounts,
                           const std::vector<Event>& history, const std::vector<LedgerEntry>& ledger,
                           const Balances& balances);

// The entries whose memo carries the intent's tag.
std::vector<LedgerEntry> entries_of(const Intent& intent, const std::vector<LedgerEntry>& ledger);

}  // namespace grader
