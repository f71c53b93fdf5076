// runner.h: one history run against a live server, every answer judged by the model (issue 51).
// docs/teach/grader-checks-itself.md "Explore: random histories judged by the model".
//
//   Run r = run_history(command, /*stage=*/4, history);  // a fresh server from `command`, stopped after
//   if (r.refused) r.refusal.rule, r.exchanges ...       // the first answer no world of the model allows
//
// Each run starts the server afresh (the command's {port} {db} {admin_token}, as `grader soak --server`), sets
// up the bank of history.h (kAccounts) through the admin API, sends the steps, and reads every balance at
// the end; every request of it, setup included, goes to grader::model::Model (grader/model/contract.h) with
// its answer. It stops at the first refusal. Requests of an InFlight step overlap: the model is told the
// first was sent (Model::send) and judges its answer once it comes (Model::answer), after the second's.
#pragma once

#include <string>
#include <vector>

#include "grader/explore/history.h"
#include "grader/model/contract.h"

namespace grader::explore {

// One request of a run and what came back.
struct Exchanged {
  int step = -1;        // the history's step (0-based); kSetup or kBalancesAtEnd for the run's own requests
  std::string role;     // within an InFlight step: "first", "clock", "second"; "" otherwise
  std::string answer;   // "201 {...}", "no answer (...)"
  bool refused = false;
};
inline constexpr int kSetup = -1;
inline constexpr int kBalancesAtEnd = -2;

struct Run {
  bool refused = false;
  model::Judgement refusal;         // when refused
  std::vector<Exchanged> exchanges;  // in the order they were judged
  std::string error;                // the server did not start (or start again): no verdict at all
  bool capped = false;              // the model dropped worlds (Settings::max_worlds) on the way
};

Run run_history(const std::string& server_command, int stage, const History& history);

}  // namespace grader::explore
