// money_handler.cc: WRONG TURN 2a, SELECT then INSERT. docs/teach/wrong-turns.md "Wrong turns".
//
// WRONG: this variant of stage 2 asks "is the key there?" and inserts it if not. Between the SELECT and
// the INSERT there is a window (widened here by Lab-Delay-Ms), and two simultaneous retries both find
// nothing, both insert, both move the money. The UNIQUE constraint of stage 2 closes the window.
//
// Stage 2 for comparison:
// The client names each request with an Idempotency-Key. The first INSERT of a key wins; the INSERT that
// fails on the UNIQUE constraint is a repeat, and a repeat moves no money. Kept flaws (stage 3 and 4 fix
// them): a repeat is answered "already processed" whatever its body says, whether or not the first request
// has finished, and even if the first one crashed before the money moved; keys are global, not per client.
#include "money_handler.h"

#include "common/auth.h"
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

  // Is this a repeat? WRONG: look first, insert after. Another request can pass between the two.
  if (keys.exists(*key)) return reply_json(res, 200, {{"status", "already processed"}});
  lab.controls.delay_if_asked(req);   // the window between the SELECT and the INSERT
  keys.insert(*key, lab.clock.now_ms());

  lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);

  // The key is ours: move the money.
  MoneyOutcome outcome = lab.bank.move_money_now(*client, *request);
  lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);

  reply_outcome(res, outcome);
}
