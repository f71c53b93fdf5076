// money_handler.cc: WRONG TURN 4b, money moved before the key is recorded. docs/teach/wrong-turns.md "Wrong turns".
//
// WRONG: the money moves, then the key is written. If the process dies in between (Lab-Crash:
// after-money), the money has moved and no key says so: the retry moves it again. Stage 4 claims the key
// first and commits the money together with "completed".
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

#include "common/auth.h"
#include "common/fingerprint.h"
#include "common/http_reply.h"
#include "common/idempotency_key.h"
#include "common/money_request.h"

using namespace lab;

// WRONG: the key is first written after the money moved, already completed, in its own transaction.
// A crash before this call leaves money moved and no key, so the retry moves it again.
static void record_completed(Database& db, const KeyTable& keys, const std::string& key, const std::string& fingerprint,
                             const MoneyOutcome& outcome, std::int64_t now_ms) {
  auto tx = db.begin_write();
  tx.conn()
      .prepare("INSERT INTO idempotency_keys (key, created_at, fingerprint, state, fence, locked_until) "
               "VALUES (?1, ?2, ?3, 'in_progress', 1, ?2)")
      .bind(1, key)
      .bind(2, now_ms)
      .bind(3, fingerprint)
      .run();
  keys.complete(tx.conn(), Claim{tx.conn().last_insert_rowid(), 1}, outcome);
  tx.commit();
}

// Flaw: the answer to a repeat is rebuilt now from what the key recorded, not the response first sent:
// the balance is today's and created_at is a new time, so the client sees two different answers.
static MoneyOutcome rebuild_outcome(Lab& lab, const KeyRow& row) {
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

  // Is this a repeat? WRONG: asked by a SELECT, since the key is only written after the money.
  std::string fingerprint = request_fingerprint(request->canonical_body);
  if (auto row = keys.find(*key)) {
    if (row->fingerprint != fingerprint)
      return reply_problem(res, Problem::Of(ProblemType::IdempotencyKeyReused,
                                            "this key was first used with a different request body"));
    return reply_outcome(res, rebuild_outcome(lab, *row));
  }

  lab.controls.delay_if_asked(req);
  lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);

  // WRONG: the money moves first, and the key is recorded after, in a second transaction.
  MoneyOutcome outcome = lab.bank.move_money_now(*client, *request);
  lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);   // a crash here: money moved, no key
  try {
    record_completed(lab.db, keys, *key, fingerprint, outcome, lab.clock.now_ms());
  } catch (const UniqueViolation&) {
    // A simultaneous copy of this request got here too: both moved the money.
  }

  reply_outcome(res, outcome);
}
