// soak_round.h: one round of `grader soak`: crash, kill, restart and retry, then check everything.
// docs/reference/plumbing.md "Plumbing" (Reliability: soak). The command line and the loop of rounds: soak.cc.
//
//   RoundResult r = run_soak_round(target, history, seed, 17, known_ledger_end);
//   if (!r.findings.empty()) ...   // the round broke an invariant; r.check names it "soak.round-17"
//
// A round is a check of its own (grader/checks/check_run.h) whose inputs come from the seed and the round's name,
// so `--seed S --round 17` sends round 17's requests again. It goes in three phases:
//   1. chaos: a few clients, each with accounts, send transfers and payouts at once, every one with its own
//      Idempotency-Key. Some first attempts carry Lab-Crash (before-money, after-money), Lab-Fail: busy or a
//      Lab-Delay-Ms; some are sent twice at once (a double click); in some rounds the server's process group
//      gets a real SIGKILL while requests are in flight. Whenever the server is down it is started again
//      on the same database file. Each client retries every unknown outcome (no response, 409 in progress,
//      503) with the same key and body, and lets the lease run out on the lab clock after two 409s.
//   2. settle: what is still unknown is retried, one key at a time, until it has a final answer.
//   3. check: every key is sent once more (nothing runs now), and the round is judged:
//      R1 every answer a key got, and its answer now, are its first answer byte for byte (status,
//         Content-Type, body): stored responses are what was sent        (replay-mismatch; 409: stuck-key)
//      R2 the ledger holds exactly one entry per key answered 2xx, none per key refused, each what its
//         request asked; balances follow the ledger; money is conserved  (grader/record/audit.h: A1-A5, B1-B3)
//      R3 the balances equal an independent model: opening balances plus the requests answered 2xx
//      R4 the money the accounts hold is the opening money minus the payouts answered 2xx (conservation)
//      R5 no balance is negative
//      R6 the overdrafts and foreign accounts the round planned were refused (402, 404)
//      R7 the database file passes PRAGMA integrity_check, and no key is in_progress past its lease
// Thread safety: one round at a time on one Target; it starts and joins its own client threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grader/checks/check.h"
#include "grader/record/anomaly.h"
#include "grader/record/audit.h"
#include "grader/record/history.h"
#include "grader/wire/target.h"

namespace grader {

// What the rounds did, added up by soak.cc for the figures at the end.
struct SoakFigures {
  std::int64_t rounds = 0;
  std::int64_t requests = 0;  // every attempt sent, the check's final sends included
  std::int64_t retries = 0;   // attempts after an unknown outcome: the requests less first sends and final sends
  std::int64_t crashes_before_money = 0, crashes_after_money = 0;  // Lab-Crash sent and never answered
  std::int64_t sigkills = 0, restarts = 0;
  std::int64_t anomalies = 0;        // findings
  std::int64_t database_checks = 0;  // rounds whose database file was read (R7)
  SoakFigures& operator+=(const SoakFigures& other);
};

struct RoundResult {
  Check check;  // the round as a check: its name draws its inputs, its section and hint go in the report
  std::vector<Finding> findings;
  std::string note;             // what the verdict could not see (CheckRun::caveat)
  std::string database_caveat;  // why R7 was not checked, or ""
  Balances before, after;
  std::string keys_named;  // the intents the findings name: key, request, answers, entries
  std::string plan;        // one line: clients, requests and faults of the round
  SoakFigures figures;
  std::int64_t ledger_start = 0;  // the last ledger entry before the round: where the next round may page from
};

// Runs round `round` of the soak drawn from `seed`. Throws StartError when the server cannot be started
// again after a crash (the caller reports it with the server's stderr).
RoundResult run_soak_round(Target& target, History& history, std::uint64_t seed, int round,
                           std::int64_t ledger_known_end);

}  // namespace grader
