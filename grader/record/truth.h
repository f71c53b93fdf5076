// truth.h: holds a finding to what the server it was made about truly does. docs/teach/grader-checks-itself.md
// "The truth table".
//
//   for (const std::string& lie : untrue(server, finding, check.stage)) problems.push_back(lie);
//
// A learner goes where a finding sends them: a finding that names a cause the server does not have, or
// credits a lesson the server already has, costs an evening in the wrong chapter. The matrix grades servers
// whose truth is known (stages/stage_servers.json: each row's "does", the traits it has, from its chapter),
// so every finding it makes can be held to that truth. The rules (numbered as in the output):
//   T1 the stage it credits ("stage N fixes it") teaches a trait the server lacks (a stage's lesson is the
//      traits its reference server has and the stage before lacks), and is never the contract, which every
//      server of the table keeps: a stage 3 server is never sent to stage 2, whose lesson it has
//   T2 the cause it claims (Finding::cause) is the lack of a trait the server truly lacks
// A description made outside the table (each of stage 6's mutants, grader mutants: stage 6's "does" minus the
// traits its file says it lacks) may lack the contract itself: the pseudo-trait "contract", which the table's
// rows keep without listing it. Such a server may be credited the contract (T1).
// It is a pure function of its inputs, so tests feed it made-up findings.
#pragma once

#include <string>
#include <vector>

#include "grader/base/stage_binaries.h"
#include "grader/record/anomaly.h"

namespace grader {

// The contract as a trait: a description that keeps it lists it; the table's rows keep it unlisted.
inline constexpr const char* kContractTrait = "contract";

// `server`'s description without the traits in `lacks` (kContractTrait among them or not), under the name
// `name` (its binary and label too, none of the table's): a mutant's truth is stage 6's row minus its lacks.
StageServer lacking(const StageServer& server, const std::vector<std::string>& lacks, const std::string& name);

// The stage whose lesson adds `trait` (the first reference stage that has it: "durable-keys" is stage 2's),
// 0 when no reference stage has it. A check that shows a trait missing by trying credits that lesson.
int lesson_teaching(const std::string& trait);

// The rules the finding breaks for this server, a line each ("T2: claims keys-not-durable, but ..."); empty
// when it tells the truth as far as the server's description says.
std::vector<std::string> untrue(const StageServer& server, const Finding& finding, int check_stage);

}  // namespace grader
