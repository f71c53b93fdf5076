// contract.h: the Model, the lab's contract as an executable specification (issue 51). It judges each
// answer a server gives against every state the server may be in, and keeps the states the answer agrees
// with. Pure and deterministic: the same history always gets the same judgements.
//
//   Model model(/*stage=*/6, Settings{.admin_token = "adm", .lease_seconds = 30});
//   Judgement j = model.judge(request, answer);        // sent and answered, nothing else in between
//   model.send(7, slow_request);                        // in flight (Lab-Delay-Ms) ...
//   Judgement k = model.answer(7, its_answer);          // ... answered later
//   model.restart();                                    // the process was started again on its file
//   if (!j.allowed) j.rule, j.rule_text, j.chapter, j.allowed_words, j.observed
//
// Where the contract leaves a choice, the model keeps one world per choice (world.h): which of two
// overlapping duplicates claims the key, whether a crashed request's money moved, whether the sweeper has
// run, a clock deadline within the observer's slack, and, per stage, whether the server already does the
// lessons of later stages (lessons.h). Ids, titles, details and created_at are the server's: an answer
// teaches them to the worlds it agrees with.
//
// The rules (rules.cc holds the same text; a judgement names the first one a world's answer broke):
//   M1  no known bearer token: 401 unauthorized + WWW-Authenticate: Bearer; nothing changes
//                                                          http-contract.md "Authentication"
//   M2  stage 2+: a missing or malformed Idempotency-Key is 400 idempotency-key-* before the body
//                                                          http-contract.md "The Idempotency-Key header"
//   M3  415, 413, 400 json-*, 400 invalid-field, in order; the key table is not touched
//                                                          http-contract.md "Status codes and their order"
//   M4  the bank's refusals in order: 404, 400 currency-mismatch, 402, 422 balance-limit; nothing moves
//                                                          http-contract.md "Status codes and their order"
//   M5  a request that runs and passes the bank: 201, its entry and from_balance_after; money moves once
//                                                          http-contract.md "Client endpoints"
//   M6  every error is application/problem+json with the contract's type and status
//                                                          http-contract.md "Errors: problem+json"
//   M7  a repeated key moves no money                     stage-2-unique-key.md "The design"
//   M8  stages 2-3: a repeat is 200 {"status":"already processed"}
//                                                          stage-2-unique-key.md "Status codes"
//   M9  stage 3+: another canonical body under the key is 422 idempotency-key-reused; any spelling of the
//       same body is the same request                     stage-3-fingerprint.md "The design"
//   M10 stage 4+: a repeat while the claim's lease runs is 409 request-in-progress + Retry-After
//                                                          stage-4-two-phase.md "The design"
//   M11 stage 4+: a lease run out is taken over (fence + 1); the old holder answers 409, moves nothing
//                                                          stage-4-two-phase.md "The design"
//   M12 stage 4+: a repeat after completion gets the first outcome (status, type, entry)
//                                                          stage-4-two-phase.md "The design"
//   M13 stage 4+: money and completion commit together: a crash leaves the claim alone, or both
//                                                          stage-4-two-phase.md "The key's life"
//   M14 Lab-Fail: busy is 503 + Retry-After, nothing moves; stage 4+ releases the claim
//                                                          lab-controls.md "Lab controls"
//   M15 stage 5+: a repeat after completion is the first answer's status, Content-Type and body bytes with
//       Idempotent-Replayed: true; a first answer never carries it
//                                                          stage-5-replay.md "The design"
//   M16 stage 6: keys are scoped by (client, endpoint, key)
//                                                          stage-6-scope-ttl.md "The design"
//   M17 stage 6: a key is forgotten after --key-ttl unless its lease runs; the sweeper may or may not have
//       deleted an expired row yet                         stage-6-scope-ttl.md "The design"
//   M18 Lab-Crash: no answer at its point (before-money, after-money, after-commit-N); keys outlive the
//       restart from stage 2                               lab-controls.md "Lab controls"
//   M19 a server that is down gives no answer; a live one answers
//                                                          http-contract.md "The process"
//   M20 GET /accounts/{id}: 200 with the model's balance for the caller's own account, else 404
//                                                          http-contract.md "Client endpoints"
//   M21 admin: clients and accounts 201 with their fields (unknown client_id 400 invalid-field); the clock
//       moves by advance_ms, 403 without --lab-controls    http-contract.md "Admin endpoints"
// M7 and M16 show in other rules' answers: a repeat that moved money is refused as the repeat's answer (a
// 201 where M8-M15 allowed none), and another client's key is judged as its own request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grader/model/message.h"
#include "grader/model/settings.h"
#include "grader/model/world.h"

namespace grader::model {

struct Judgement {
  bool allowed = true;
  std::string rule;           // "M10" (when refused)
  std::string rule_text;
  std::string chapter;        // docs/learn/... "Heading"
  std::string allowed_words;  // what the model allowed, in words (a few of the worlds' answers)
  std::string observed;       // what in the answer disagreed
  bool capped = false;        // worlds were dropped at Settings::max_worlds: a refusal may be the model's
};

class Model {
 public:
  Model(int stage, Settings settings);

  Judgement judge(const Request& request, const Answer& answer);
  void send(int id, const Request& request);
  Judgement answer(int id, const Answer& answer);
  void restart();

  std::size_t worlds() const { return worlds_.size(); }
  const std::vector<World>& states() const { return worlds_; }  // for the ledger and balance checks

 private:
  std::vector<World> advance_others(const World& w, int except, std::int64_t now_real_ms) const;
  void keep(std::vector<World>& next);

  int stage_;
  Settings settings_;
  std::vector<World> worlds_;
  std::int64_t last_real_ms_ = 0;
  int next_auto_id_ = 1000000;  // judge()'s own flight ids
  bool capped_ = false;
};

}  // namespace grader::model
