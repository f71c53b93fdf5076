// anomaly.h: the named ways a server can be wrong, each with why it matters and the stage that fixes it.
// LAB.md "The grader" (anomalies).
//
//   Finding f{.anomaly = Anomaly::DoubleApply, .what = "intent i2 moved money 2 times (ledger ids 7, 9)"};
//   name(f.anomaly) == "double-apply"; info(f.anomaly).fixed_by == 2
//
// A Finding is one failed expectation of a check, with the evidence to show the learner. Write one with
// designated initializers, naming each field it fills: the evidence fields are all strings, and a
// positional list would let one land in another's place.
#pragma once

#include <string>
#include <string_view>
#include <vector>

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
};

// Every anomaly, for the chapter and --help.
std::vector<AnomalyInfo> all_anomalies();

}  // namespace grader
