// money_handler.cc: WRONG TURN 4a, "completed" recorded before the money moves. docs/teach/wrong-turns.md "Wrong turns".
//
// WRONG: the key is marked completed, then the money moves in a separate transaction. If the process dies
// in between (Lab-Crash: before-money), the key says "completed" for a transfer that never happened, and
// every retry is told success. Stage 4 commits the money and "completed" in one transaction.
//
// Stage 4 for comparison:
// The key is claimed in_progress (committed) before any money moves; the money and the key's completion
// then commit in one transaction. So a crash leaves either nothing done (the claim, still in_progress) or
// everything done (money and completed): never "completed" without money, nor money without "completed".
// A repeat while in progress gets 409 with Retry-After. A claim whose holder died blocks the key until its
// lease runs out (--lease, lab clock); then a repeat takes it over, fenced, so a holder that was only slow
// cannot move the money a second time. Kept flaw (stage 5 fixes it): a repeat after completion gets an
// answer rebuilt now, with the current balance and a new created_at, not the response first sent.
#include "money_handler.h"

#include <chrono>

#include "common/auth.h"
#include "common/fingerprint.h"
#include "common/http_reply.h"
#include "common/idempotency_key.h"
#include "common/money_request.h"

using namespace lab;

// WRONG: a promise recorded before it is kept. A crash from here until the money commits leaves a key
// that says "completed (201)" for a transfer that never happened. (Stage 4's KeyTable has no such call.)
static void mark_completed(Database& db, const Claim& claim) {
  auto tx = db.begin_write();
  tx.conn()
      .prepare("UPDATE idempotency_keys SET state = 'completed', status = 201 WHERE id = ?1 AND fence = ?2")
      .bind(1, claim.id)
      .bind(2, claim.fence)
      .run();
  tx.commit();
}

// The outcome, written after the fact into the row that already says "completed".
static void record_outcome(Database& db, const Claim& claim, const MoneyOutcome& outcome) {
  auto tx = db.begin_write();
  auto update = tx.conn().prepare(
      "UPDATE idempotency_keys SET status = ?1, entry_id = ?2, problem_type = ?3, problem_detail = ?4 "
      "WHERE id = ?5 AND fence = ?6");
  if (auto* entry = std::get_if<LedgerEntry>(&outcome))
    update.bind(1, 201).bind(2, entry->id).bind(3, nullptr).bind(4, nullptr);
  else
    update.bind(1, std::get<Problem>(outcome).status()).bind(2, nullptr).bind(3, std::get<Problem>(outcome).slug())
        .bind(4, std::get<Problem>(outcome).detail);
  update.bind(5, claim.id).bind(6, claim.fence).run();
  tx.commit();
}

// Flaw: the answer to a repeat is rebuilt now from what the key recorded, not the response first sent:
// the balance is today's and created_at is a new time, so the client sees two different answers.
static MoneyOutcome rebuild_outcome(Lab& lab, const KeyRow& row) {
  if (!row.entry_id && row.problem_type.empty()) {   // "completed", but nothing was ever recorded
    LedgerEntry promised;
    promised.created_at = lab.clock.now_ms();
    return promised;
  }
  if (!row.entry_id) return Problem::Of(problem_type_from_slug(row.problem_type), row.problem_detail);
  LedgerEntry entry = *lab.bank.find_entry(lab.db.conn(), *row.entry_id);
  entry.from_balance_after = lab.bank.find_account(entry.from_account)->balance;
  entry.created_at = lab.clock.now_ms();
  return entry;
}

void handle_money_request(Lab& lab, const KeyTable& keys, const httplib::Request& req, httplib::Response& res,
                          Endpoint endpoint) {
  // Who is asking? (401)
  auto client = authenticate_or_reply(lab.bank, req, res);
  if (!client) return;

  // Which key? (400)
  auto key = parse_idempotency_key_or_reply(req, res);
  if (!key) return;

  // Is the body a valid request? (415, 413, 400) A 400 never touches the key table.
  auto request = parse_money_request_or_reply(req, res, endpoint);
  if (!request) return;

  // Is this a repeat? The INSERT decides: for a key already taken it fails on the UNIQUE constraint.
  std::string fingerprint = request_fingerprint(request->canonical_body);
  const auto lease_ms = std::chrono::duration_cast<std::chrono::milliseconds>(lab.options.lease).count();
  std::optional<Claim> claim;
  try {
    claim = keys.claim(*key, lab.clock.now_ms(), fingerprint, lease_ms);
  } catch (const UniqueViolation&) {
    auto row = keys.find(*key);
    if (!row) return reply_in_progress(res);   // released between our INSERT and this SELECT: retry (409)
    // The same key with another body: which of the two did the client mean? Refuse (422), move nothing.
    if (row->fingerprint != fingerprint)
      return reply_problem(res, Problem::Of(ProblemType::IdempotencyKeyReused,
                                            "this key was first used with a different request body"));
    if (row->state == kCompleted) return reply_outcome(res, rebuild_outcome(lab, *row));
    // Still in progress. If its lease ran out, its holder died (or is too slow): take it over, fenced.
    if (row->locked_until <= lab.clock.now_ms()) claim = keys.take_over(*row, lab.clock.now_ms(), lease_ms);
    if (!claim) return reply_in_progress(res);
  }

  mark_completed(lab.db, *claim);   // WRONG: "completed" before the money moved
  lab.controls.delay_if_asked(req);
  lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);

  // Move the money, then record what happened, in a second transaction.
  MoneyOutcome outcome = lab.bank.move_money_now(*client, *request);
  record_outcome(lab.db, *claim, outcome);
  lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);

  reply_outcome(res, outcome);
}
