// money_handler.cc: the learner's money handler, one server that grows stage by stage. docs/learn/for-learners.md "For learners".
//
// Stage 1 (where the starter begins) executes every request. Each later stage adds one lesson, marked in the
// reference as a region; in the starter each region is a TODO that names its chapter and heading, and what stands
// there instead keeps the behaviour of the stages before. `make grade STAGE=N` grades stages 1..N.
#include "money_handler.h"

#include <chrono>

#include "common/auth.h"
#include "common/fingerprint.h"
#include "common/http_reply.h"
#include "common/idempotency_key.h"
#include "common/money_request.h"

using namespace lab;

// The response as it is about to be sent.
static StoredResponse as_stored(const httplib::Response& res) {
  return StoredResponse{res.status, res.get_header_value("Content-Type"), res.body};
}

// LAB BEGIN 4 the answer to a repeat after completion, rebuilt from what the key recorded
// (Stage 5 replaces it: the balance is today's and created_at is a new time.)
static MoneyOutcome rebuild_outcome(Lab& lab, const KeyRow& row) {
  if (!row.entry_id) return Problem::Of(problem_type_from_slug(row.problem_type), row.problem_detail);
  LedgerEntry entry = *lab.bank.find_entry(lab.db.conn(), *row.entry_id);
  entry.from_balance_after = lab.bank.find_account(entry.from_account)->balance;
  entry.created_at = lab.clock.now_ms();
  return entry;
}
// LAB END

// LAB BEGIN 5 the answer to a repeat after completion: the response first sent, byte for byte
static void replay(httplib::Response& res, const StoredResponse& stored) {
  res.status = stored.status;
  res.set_content(stored.body, stored.content_type.c_str());
  res.set_header(kReplayedHeader, "true");
}
// LAB END

void handle_money_request(Lab& lab, const KeyTable& keys, const httplib::Request& req, httplib::Response& res,
                          Endpoint endpoint) {
  // Who is asking? (401)
  auto client = authenticate_or_reply(lab.bank, req, res);
  if (!client) return;

  // Which key? (400)
  // LAB BEGIN 2 read the Idempotency-Key header (a missing or malformed key is a 400)
  auto key = parse_idempotency_key_or_reply(req, res);
  if (!key) return;
  // LAB ELSE
  std::optional<std::string> key = std::string();   // no key table yet: the key is not read
  // LAB END

  // Is the body a valid request? (415, 413, 400) A 400 never touches the key table.
  auto request = parse_money_request_or_reply(req, res, endpoint);
  if (!request) return;

  std::string fingerprint;
  // LAB BEGIN 3 the fingerprint: SHA-256 of the body's RFC 8785 canonical form
  fingerprint = request_fingerprint(request->canonical_body);
  // LAB END
  const Scope scope{client->id, std::string(path_of(endpoint)), *key};
  const auto lease_ms = std::chrono::duration_cast<std::chrono::milliseconds>(lab.options.lease).count();
  const auto ttl_ms = std::chrono::duration_cast<std::chrono::milliseconds>(lab.options.key_ttl).count();

  // Is this a repeat? The INSERT decides: for a key already taken it fails on the UNIQUE constraint.
  std::optional<Claim> claim;
  try {
    claim = keys.claim(scope, lab.clock.now_ms(), fingerprint, lease_ms, ttl_ms);
  } catch (const UniqueViolation&) {
    auto row = keys.find(scope);
    if (!row) return reply_in_progress(res);   // released between our INSERT and this SELECT: retry (409)
    // LAB BEGIN 3 the same key with another body: which did the client mean? Refuse (422), move nothing
    if (row->fingerprint != fingerprint)
      return reply_problem(res, Problem::Of(ProblemType::IdempotencyKeyReused,
                                            "this key was first used with a different request body"));
    // LAB END
    // LAB BEGIN 5 completed: replay the stored response
    if (row->state == kCompleted) return replay(res, row->response);
    // LAB END
    // LAB BEGIN 4 answer by the key's state: its outcome, 409 while in progress, or take over a dead claim
    if (row->state == kCompleted) return reply_outcome(res, rebuild_outcome(lab, *row));
    if (row->locked_until <= lab.clock.now_ms()) claim = keys.take_over(*row, lab.clock.now_ms(), lease_ms);
    if (!claim) return reply_in_progress(res);
    // LAB ELSE
    return reply_json(res, 200, {{"status", "already processed"}});
    // LAB END
  }

  lab.controls.delay_if_asked(req);
  lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);

  // LAB BEGIN 4 move the money and complete the key in one transaction, only while our claim still holds
  try {
    auto tx = lab.db.begin_write();
    if (!keys.holds(tx.conn(), *claim)) return reply_in_progress(res);   // fenced out: a retry took over
    MoneyOutcome outcome = lab.bank.move_money(tx.conn(), *client, *request);
    reply_outcome(res, outcome);
    keys.complete(tx.conn(), *claim, outcome, as_stored(res));
    tx.commit();
  } catch (...) {
    // Not the request's fault (database busy: 503; a bug: 500). The transaction rolled back, so nothing
    // moved: free the key (fenced, so only our own claim) for a retry, and let the error be answered.
    keys.release(*claim);
    throw;
  }
  // LAB ELSE
  MoneyOutcome outcome = lab.bank.move_money_now(*client, *request);
  reply_outcome(res, outcome);
  // LAB END
  lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);
}
