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
// The rules, numbered M1-M24, each with its text and the chapter section that states it, are one table:
// rules.cc (kRules). A judgement names the first rule a world's answer broke. In short: M1 the token, M2 the
// key header, M3 the body, M4 the bank's refusals, M5 a 201, M6 problem+json, M7 a repeat moves no money,
// M8 "already processed" (stages 2-3), M9 the fingerprint, M10 409 while the lease runs, M11 takeover and
// fence, M12 the first outcome again, M13 money and completion together, M14 busy, M15 the stored replay,
// M16 scope, M17 retention, M18 crash points and restart, M19 up or down, M20 GET /accounts, M21 admin, M22 a
// busy 503 releases the claim (stage 4), M23 Retry-After's form, M24 keys outlive a restart (stage 2).
#pragma once

#include <cstdint>
#include <map>
#include <set>
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
  // The stage whose lesson the refused answer shows missing (0: the contract every stage keeps). A Model
  // alone says the rule's stage (rules.h rule_stage); a Ladder (ladder.h) says the lowest stage whose model
  // refuses the history, which is the one to credit.
  int lesson_stage = 0;
  bool by_ladder = false;  // lesson_stage is the ladder's (the model one stage lower allowed the history)
};

class Model {
 public:
  Model(int stage, Settings settings);

  Judgement judge(const Request& request, const Answer& answer);
  void send(int id, const Request& request);
  Judgement answer(int id, const Answer& answer);
  void restart();
  // A refusal names a rule of this stage when some refusing world's rule is one (rules.h rule_stage; 0 the
  // contract's): the Ladder's model of stage k, which refuses where the model of stage k-1 allowed, says what
  // stage k's lesson required there.
  void prefer_rules_of(int stage) { prefer_stage_ = stage; }

  std::size_t worlds() const { return worlds_.size(); }
  const std::vector<World>& states() const { return worlds_; }  // for the ledger and balance checks

 private:
  std::vector<World> advance_others(const World& w, int except, std::int64_t now_real_ms) const;
  void keep(std::vector<World>& next);
  void name_money_seen_late(Judgement& refusal) const;
  void name_retry_after_busy(Judgement& refusal, int id, const Answer& observed) const;

  int stage_;
  int prefer_stage_ = -1;  // prefer_rules_of; -1: the heuristics of answer() alone
  Settings settings_;
  std::vector<World> worlds_;
  std::int64_t last_real_ms_ = 0;
  int next_auto_id_ = 1000000;  // judge()'s own flight ids
  bool capped_ = false;
  std::set<std::string> keys_sent_;  // "path token key" of every request sent with a key
  bool key_sent_again_ = false;      // some request repeated a key
  bool crashed_with_key_ = false;    // some request with a key carried Lab-Crash
  std::map<int, std::string> key_of_;     // each flight's "path token key", when it had a key
  std::set<std::int64_t> busy_ids_;       // flights sent with Lab-Fail: busy
  std::set<int> unanswered_;              // flights sent and not yet answered
  std::set<int> overlapped_;              // flights that were in flight together with another of their key
  std::set<std::string> failed_busy_;     // the "path token key" of each answered 503 under Lab-Fail: busy
};

}  // namespace grader::model
