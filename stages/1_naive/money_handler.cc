// money_handler.cc: stage 1, the naive server. docs/learn/stage-1-naive.md "Stage 1: the naive server".
//
// Every request that arrives moves money. A client whose response was lost (a gateway timeout, a dropped
// connection) cannot tell "not done" from "done, answer lost", so it sends the same request again, and
// this handler executes it again: the retry is a second transfer. RFC 9110 section 9.2.2 makes no promise
// for POST; the server has to.
#include "money_handler.h"

#include "common/auth.h"
#include "common/http_reply.h"
#include "common/money_request.h"

using namespace lab;

void handle_money_request(Lab& lab, const httplib::Request& req, httplib::Response& res, Endpoint endpoint) {
  // Who is asking? (401)
  auto client = authenticate_or_reply(lab.bank, req, res);
  if (!client) return;

  // Is the body a valid request? (415, 413, 400)
  auto request = parse_money_request_or_reply(req, res, endpoint);
  if (!request) return;

  lab.controls.delay_if_asked(req);
  lab.controls.crash_if_asked(req, CrashPoint::BeforeMoney);

  // Move the money. Nothing asks whether this very request was executed before: that is the flaw.
  MoneyOutcome outcome = lab.bank.move_money_now(*client, *request);
  lab.controls.crash_if_asked(req, CrashPoint::AfterMoney);

  reply_outcome(res, outcome);
}
