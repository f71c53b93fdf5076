// anomaly.h: the named ways a server can be wrong, each with why it matters and the stage that fixes it.
// docs/teach/grader.md "The grader" (anomalies).
//
//   Finding f{.anomaly = Anomaly::DoubleApply, .what = "intent i2 moved money 2 times (ledger ids 7, 9)"};
//   name(f.anomaly) == "double-apply"; info(f.anomaly).fixed_by == 2
//
// A Finding is one failed expectation of a check, with the evidence to show the learner. Write one with
// designated initializers, naming each field it fills: the evidence fields are all strings, and a
// positional list would let one land in another's place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "grader/record/cause.h"

namespace grader {

enum class Anomaly {
  DoubleApply,           // one intent moved money more than once
  LostWrite,             // a client was told success, and the money never moved
  InFlightLie,           // a client was told success while the money was not yet in the ledger
  NotExecuted,           // money moved fewer times than expected, though its client asked until answered
  FenceBroken,           // a request whose lease was taken over still moved money or was told success
  ReplayMismatch,        // a repeat of a completed request got another status, body or header
  FingerprintIgnored,    // the same key with another body was answered as if it were the first request
  FingerprintTooStrict,  // the same body, only written differently, was refused as another request
  BurnedKey,             // a request refused as invalid (400) made its key unusable
  KeyConflated,          // two keys that differ (in letter case, in spaces) were taken as one
  StuckKey,              // a finished request's key still answers "in progress"
  ScopeLeak,             // another client's (or endpoint's) key decided this client's request
  ExpiredKeyHonoured,    // a key past its TTL still replayed
  PolicyMismatch,        // GET /idempotency-policy says something the server does not do
  WrongStatus,           // the contract's status or problem type was not the one answered
  BalanceDrift,          // balances disagree with the ledger, or money was created or destroyed
  UnexplainedEntry,      // a ledger entry no request of the check asked for
  NoResponse,            // the server gave no answer where the contract requires one
  ContractShape,         // a response's fields, types or content type differ from the contract
  CorruptDatabase,       // the server's database file fails PRAGMA integrity_check (grader soak)
  IdleCpu,               // the server kept a core busy while no request came
  OverLimit,             // the server went over a limit the grader sets on every server, and was ended
  DisallowedAnswer,      // an answer no right server could give at that point of a history (the model's rule)
};

struct AnomalyInfo {
  Anomaly anomaly;
  std::string_view name;     // kebab-case, stable: it appears in histories, JSON and JUnit
  std::string_view because;  // why it matters to the client
  int fixed_by;              // the stage whose lesson fixes it (0: the contract itself)
};

const AnomalyInfo& info(Anomaly anomaly);
std::string_view name(Anomaly anomaly);

struct Finding {
  Anomaly anomaly = Anomaly::WrongStatus;
  std::string what;  // one line: what happened, with ids and numbers (no default: leaving it out is a warning)
  // The contract operation it is about, as "METHOD /path ..." ("GET /accounts/{id}"), when the finding
  // judges an operation rather than one request it shows: the report names its openapi.yaml operationId.
  std::string operation = "";
  std::string sent = "";      // the request that shows it, as sent (may be empty)
  std::string received = "";  // what came back
  std::string expected = "";  // what the contract says
  // Where to look, when it is not the check's lesson (a contract field, a server that refuses connections);
  // empty: the check's hint.
  std::string hint = "";
  // What the report's timeline marks (grader/report/timeline_svg.h:marks_for): the history ops that show it, when
  // the finding is about recorded attempts (check_run.cc), else the intent it is about (audit.cc), whose
  // every attempt is then marked. Both empty: the finding is about no request (a balance, an operation).
  std::string intent = "";
  std::vector<std::int64_t> ops = {};
  // The cause its words claim, once the grader has ruled the others out by trying (cause.h); None: it claims
  // none. The truth table (truth.h) holds it to what the server truly does.
  Cause cause = Cause::None;
  // The stage whose lesson fixes it when that is neither the check's nor the anomaly's own: a control step
  // inside a later stage's check that shows an earlier lesson missing (a claim that does not hold at all,
  // seen in stage 6's check of expiring claims). -1: fixing_stage decides.
  int fixed_by = -1;
};

// The stage whose lesson fixes this finding, 0 for the contract. The same anomaly has different cures: a
// double apply after a crash needs stage 4, not stage 2, and a lost write in a stage 2 check is stage 2's
// lesson (the key and the money in one transaction), not stage 4's. The check's stage is where its lesson is,
// so it fixes the check's findings; unless the finding has a hint of its own, which says it is not about the
// check's lesson (a contract field, a transport fault, a key not kept at all): then the anomaly's own stage.
// A contract check (stage 0) is fixed where its anomaly is taught. A finding's own fixed_by comes first.
int fixing_stage(const Finding& finding, int check_stage);

// Every anomaly, for the chapter and --help.
std::vector<AnomalyInfo> all_anomalies();

}  // namespace grader
