// runner.h: one history run against a live server, every answer judged by the model (issue 51).
// docs/teach/grader-checks-itself.md "Explore: random histories judged by the model".
//
//   Run r = run_history(start, /*stage=*/4, history);  // a fresh server from start(), stopped after
//   if (r.refused) r.refusal.rule, r.exchanges ...     // the first answer no world of the model allows
//
// Each run starts the server afresh (StartServer: `grader explore` launches its command, stageN.conformance a
// sibling of the graded server), sets up the bank of history.h (kAccounts) through the admin API, sends the
// steps, and reads every balance at the end; every request of it, setup included, goes to
// the model of the contract (grader/model/ladder.h: the stage's, and the ones below to say which lesson a
// refused answer shows missing) with its answer. It stops at the first refusal. Requests of
// an InFlight step overlap: the model is told the first was sent (Model::send) and judges its answer once it
// comes (Model::answer), after the second's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "grader/explore/history.h"
#include "grader/model/ladder.h"
#include "grader/wire/target.h"
#include "grader/wire/wire.h"

namespace grader::explore {

// Starts the server one run talks to, on a fresh database; the run stops it when it ends. Throws StartError.
using StartServer = std::function<std::unique_ptr<Target>()>;

// Told of the run's requests as they go (the setup's not included: it is the same every run), for a record
// beside the transcript: stageN.conformance writes them into the grader's history, so the report's timeline
// shows the run (grader/checks/checks_conformance.cc). Called from the run's thread and, for the first
// request of an InFlight step, from the thread that sends it.
class Recorder {
 public:
  virtual ~Recorder() = default;
  virtual std::int64_t sent(int step, const HttpRequest& request) = 0;  // before it goes; returns its op
  virtual void answered(std::int64_t op, const Exchange& exchange) = 0;
  virtual void fault(const std::string& what, const std::string& detail) = 0;  // "lab-crash", "restart", "clock"
};

// One request of a run and what came back.
struct Exchanged {
  int step = -1;        // the history's step (0-based); kSetup or kBalancesAtEnd for the run's own requests
  std::string role;     // within an InFlight step: "first", "clock", "second"; "" otherwise
  std::string answer;   // "201 {...}", "no answer (...)"
  bool refused = false;
  std::int64_t op = 0;  // the Recorder's op for it; 0 when the run had none, and for the setup
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

Run run_history(const StartServer& start, int stage, const History& history, Recorder* recorder = nullptr);

}  // namespace grader::explore
