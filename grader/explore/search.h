// search.h: a seed's random histories run one after another until the model refuses an answer; that history
// shrunk to the shortest that still fails the same rule, and run once more on a fresh server, recorded (issue
// 51). What `grader explore` and stageN.conformance both do. docs/teach/grader-checks-itself.md "Explore:
// random histories judged by the model".
//
//   Searched s = search(start, /*stage=*/3, seed, {.histories = 10, .length = 10}, target.facts(), deadline);
//   if (s.divergence) steps_text(s.divergence->history, s.divergence->run) + refusal_text(s.divergence->run);
//
// History n of a seed is the same whatever the budget (history_seed), so a check that runs the first 3 of a
// seed and `grader explore --seed S` that runs 10 agree on the first 3. Past the deadline no history starts and
// no shrinking run is made: the divergence found so far is kept as it is, and a search that found none says
// it ran out of time (never a pass).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "grader/explore/history.h"
#include "grader/explore/runner.h"
#include "grader/explore/shrink.h"

namespace grader::explore {

struct Budget {
  int histories = 20;
  int length = 10;                       // steps per history
  int max_shrink_tries = kMaxShrinkTries;  // runs the shrinking may make
};

struct Divergence {
  int number = 0;                  // which history of the seed, from 1
  std::size_t steps_before = 0;    // its steps up to the refused one, before shrinking
  History history;                 // shrunk: the shortest that still fails with the same rule
  int tries = 0;                   // runs the shrinking made
  Run run;                         // the shrunk history's run: what came back, and the refusal
  bool confirmed = false;          // run once more on a fresh server (recorded), refused by the same rule:
                                   // `run` is that run; false: `run` is the shrinking's last failing run
};

struct Searched {
  std::optional<Divergence> divergence;
  int allowed = 0;            // histories in which every answer was allowed
  std::string error;          // the server did not start: no verdict at all
  bool out_of_time = false;   // the deadline came before every history had run (and none was refused)
};

// Told how the search goes, for a progress line; either may be empty.
struct SearchProgress {
  std::function<void(int n, const History&)> allowed;                                  // history n passed
  std::function<void(int n, int refused_step, const std::string& rule, std::size_t steps)> shrinking;
};

// History n (from 1) of a seed: its own stream of the seed (grader/base/rng.h).
std::uint64_t history_seed(std::uint64_t seed, int n);

// `recorder` (may be null) is told only of the confirming run's requests: the one the report shows.
Searched search(const StartServer& start, int stage, std::uint64_t seed, const Budget& budget, const ServerFacts& facts,
                std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
                Recorder* recorder = nullptr, const SearchProgress& progress = {});

// The run step by step, as a learner reads it: the bank's setup, each step in words with what came back
// (the refused answer marked "<- refused"), the balances read at the end if the refusal was there. Lines end
// in '\n', none indented at the start (the steps' answers are, under their step).
std::string steps_text(const History& h, const Run& r);
// The refusal: the rule and its text, its chapter, what the model allowed, what it observed (and a line if the
// model dropped states on the way, so the refusal may be the model's own).
std::string refusal_text(const Run& r);
// Whether the shrunk history was refused again on a fresh server, in one line.
std::string confirmation_text(const Divergence& d);

}  // namespace grader::explore
