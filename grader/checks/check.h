// check.h: what a check is, and the list of them. docs/teach/grader.md "The grader" (the checks).
//
// A check is one sentence a correct server makes true ("a retry after a lost response moves money once"),
// with the stage whose lesson makes it true. Its body sends requests through a CheckRun and may add
// findings; the auditor then judges the history (grader/record/audit.h). The check passes with no findings.
//
//   Check{.name = "stage2.lost-response-retry",
//         .stage = 2,
//         .title = "a retry after a lost response moves money once",
//         .teaches = stage_chapter(2),
//         .hint = "store the key so a repeat finds it; a repeat must not execute again",
//         .needs = Needs::Nothing,
//         .run = lost_response_retry};
//
// Registrations name every field (designated initializers): three of them are strings, and a positional
// list would let a title and a hint change places unnoticed. .teaches is where the text teaches it: a
// stage's chapter (stage_chapter(N)) or a section of another ({"docs/reference/http-contract.md",
// "Authentication"}); make test checks that each names a heading that exists (grader/base/doc_ref.h). .own_server is given with Needs::OwnServer.
//
// Stage 0 is the contract: the shapes of every operation. If any stage-0 check fails nothing else runs.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "grader/base/doc_ref.h"
#include "grader/wire/target.h"

namespace grader {

class CheckRun;

enum class Needs {
  Nothing,
  Restart,  // crashes the server (Lab-Crash or SIGKILL): skipped with --url
  OwnServer,  // runs on a server of its own, started with the check's --lease and --key-ttl: skipped with --url
  FreshServers,  // starts a fresh server from the --server command for each of its runs (stageN.conformance):
                 // skipped with --url
};

// The random histories each stageN.conformance runs (checks_conformance.cc; the grader's --histories K): ten
// when one server is graded (5-9 s a stage on a right server), three where many are graded (grader matrix and
// grader mutants; the tests of make test that grade whole runs pass --histories 3), with the same code.
inline constexpr int kConformanceHistories = 10;
inline constexpr int kConformanceHistoriesWhenMany = 3;

// A check's time bound unless it states its own (Check::time_bound).
inline constexpr std::chrono::seconds kCheckTimeBound{120};

struct Check {
  std::string name;  // "stage<N>.<slug>", stable: --check takes it
  int stage = 0;
  std::string title;    // the sentence
  DocRef teaches;       // the chapter and section that teach it
  std::string hint;     // one line: where to look when it fails
  Needs needs = Needs::Nothing;
  std::function<void(CheckRun&)> run;
  // Needs::OwnServer: the values the check's own server is started with. A lease of a second or two lets
  // a lease run out in real time as well as on the lab clock, so a server whose leases keep real time is
  // tested too (docs/teach/grader.md "What it assumes about time").
  ServerFacts own_server{};
  // The longest the check may take, whatever the server does: past it, the check stops with the verdict it
  // has (a server that holds a key forever fails within it, and does not keep the grader waiting). Far
  // above what any check takes on a right server (a few seconds; about ten under ThreadSanitizer), so a
  // loaded machine does not decide a verdict.
  std::chrono::seconds time_bound = kCheckTimeBound;
};

// The checks, stage by stage, in the order they run.
std::vector<Check> contract_checks();
std::vector<Check> stage1_checks();
std::vector<Check> stage2_checks();
std::vector<Check> stage3_checks();
std::vector<Check> stage4_checks();
std::vector<Check> stage5_checks();
std::vector<Check> stage6_checks();
Check sigkill_check();            // checks_sigkill.cc, part of stage 4
Check commit_crash_check();       // checks_commit_crash.cc, part of stage 4
Check conformance_check(int stage);  // checks_conformance.cc, the last check of each stage 2..6
std::vector<Check> all_checks();  // every stage, 0 to 6

}  // namespace grader
