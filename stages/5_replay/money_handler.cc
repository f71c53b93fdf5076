// money_handler.cc: stage 5, replay the stored response. docs/learn/stage-5-replay.md "Stage 5: replay the stored response".
//
// The response is rendered once, stored with the key in the transaction that moves the money, and every
// repeat after completion gets exactly those bytes back, with Idempotent-Replayed: true: the balance and
// created_at the client saw the first time, not today's. Kept flaws (stage 6 fixes them): keys are global
// and the idempotency step runs before the ownership check, so another client who sends the same key and
// body receives this client's stored response; a colliding client gets 422 and its own transfer never
// runs; keys are kept forever.
#include "money_handler.h"

#include <chrono>

#include "common/auth.h"
#include "common/fingerprint.h"
#include "common/http_reply.h"
#include "common/idempotency_key.h"
#include "common/money_request.h"

using namespace lab;

// The response as sent: what the key keeps, so that every repeat gets exactly these bytes back.
static StoredResponse as_stored(const httplib::Response& res) {
  return StoredResponse{res.status, res.get_header_value("Content-Type"), res.body};
}

// The answer to a repeat: the response first sent, byte for byte, marked as a replay.
static void replay(httplib::Response& res, const StoredResponse& stored) {
  res.status = stored.status;
  res.set_content(stored.body, stored.content_type.c_str());
  res.set_header(kReplayedHeader, "true");
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
    if (row->state == kCompleted) return replay(res, row->response);
    // Still in progress. If its lease ran out, its holder died (or is too slow): take it over, fenced.
    if (row->locked_until <= lab.clock.now_ms()) claim = keys.take_over(*row, lab.clock.now_ms(), lease_ms);
    if (!claim) return reply_in_progress(res);
  }

  lab.controls.delay_if_asked(req);
  lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);

  // Move the money and complete the key in one transaction, only while our claim still holds.
  try {
    auto tx = lab.db.begin_write();
    if (!keys.holds(tx.conn(), *claim)) return reply_in_progress(res);   // fenced out: a retry took over
    MoneyOutcome outcome = lab.bank.move_money(tx.conn(), *client, *request);
    reply_outcome(res, outcome);                        // rendered once ...
    keys.complete(tx.conn(), *claim, as_stored(res));   // ... and stored with the money
    tx.commit();
  } catch (...) {
    // Not the request's fault (database busy: 503; a bug: 500). The transaction rolled back, so nothing
    // moved: free the key (fenced, so only our own claim) for a retry, and let the error be answered.
    keys.release(*claim);
    throw;
  }
  lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);
}
