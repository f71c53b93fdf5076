// soak.h: `grader soak`: round after round of crashes, SIGKILLs, restarts and retries on one server and
// one database file, each round checked in full. docs/reference/plumbing.md "Plumbing" (Reliability: soak).
//
//   grader soak [--rounds N] [--seed S] [--round N] [--stage N|NAME] [--bin-dir DIR] [--server CMD]
//
// One round is grader/soak/soak_round.h; this file is the command line, the loop, the progress and the figures.
// `make soak ROUNDS=N SEED=S` runs it on stage 6; `make test` runs 20 rounds.
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_soak(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
