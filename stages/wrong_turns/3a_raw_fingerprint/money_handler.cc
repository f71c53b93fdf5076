// money_handler.cc: WRONG TURN 3a, a fingerprint of the raw body. docs/teach/wrong-turns.md "Wrong turns".
//
// WRONG: the fingerprint hashes the bytes as they arrived. A client library that orders members
// differently, spaces them differently or escapes "é" as "\u00e9" on its retry sends the same request in
// other bytes, and is refused with 422. Stage 3 hashes the RFC 8785 canonical form instead.
//
// Stage 3 for comparison:
// The key is stored with a fingerprint of the request: SHA-256 of its RFC 8785 canonical body. A repeat
// whose body differs (another amount, another recipient) is not a retry but a mistake: 422, nothing moves.
// Key order, whitespace and escapes do not change the canonical form, so a retry rebuilt by another JSON
// library still matches. Kept flaws (stage 4 fixes them): a repeat is answered "already processed" while
// the first request still runs, and also when the first one crashed before the money moved; keys are
// global, so another client's colliding key gets 422 and learns that the key exists.
#include "money_handler.h"

#include "common/auth.h"
#include "common/fingerprint.h"
#include "common/http_reply.h"
#include "common/idempotency_key.h"
#include "common/money_request.h"

using namespace lab;

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
  std::string fingerprint = request_fingerprint(req.body);   // WRONG: the raw bytes, not the canonical form
  try {
    keys.insert(*key, lab.clock.now_ms(), fingerprint);
  } catch (const UniqueViolation&) {
    // The same key with another body: which of the two did the client mean? Refuse (422), move nothing.
    if (keys.fingerprint_of(*key) != fingerprint)
      return reply_problem(res, Problem::Of(ProblemType::IdempotencyKeyReused,
                                            "this key was first used with a different request body"));
    // Flaw: "done", without knowing whether the first one has done anything.
    return reply_json(res, 200, {{"status", "already processed"}});
  }

  lab.controls.delay_if_asked(req);
  lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);

  // The key is ours: move the money.
  MoneyOutcome outcome = lab.bank.move_money_now(*client, *request);
  lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);

  reply_outcome(res, outcome);
}
