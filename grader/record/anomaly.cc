// anomaly.cc: the anomaly registry. Names are part of the grader's output format: never rename one.
#include "grader/record/anomaly.h"

#include <array>
#include <stdexcept>

namespace grader {
namespace {

using enum Anomaly;

constexpr std::array kAnomalies = {
    AnomalyInfo{DoubleApply, "double-apply",
                "one intent moved money more than once: the client paid twice for one click", 2},
    AnomalyInfo{LostWrite, "lost-write", "the client was told success but the money never moved: it will never retry",
                4},
    AnomalyInfo{InFlightLie, "in-flight-lie",
                "a repeat was told success while the first request was still running: if that one dies, "
                "the success was a lie",
                4},
    AnomalyInfo{NotExecuted, "not-executed",
                "the client asked until it got an answer, and the money moved fewer times than it asked for", 4},
    AnomalyInfo{FenceBroken, "fence-broken",
                "a request whose lease a retry had taken over still acted: two holders of one key", 4},
    AnomalyInfo{ReplayMismatch, "replay-mismatch",
                "a repeat was not answered with the first response (status, body bytes, Idempotent-Replayed)", 5},
    AnomalyInfo{FingerprintIgnored, "fingerprint-ignored",
                "the key was reused with another body and the server answered as if it were the first request", 3},
    AnomalyInfo{FingerprintTooStrict, "fingerprint-too-strict",
                "the same request was refused as another (perhaps the same JSON written differently): its retries can "
                "never be answered; compare the RFC 8785 canonical form of the body alone",
                3},
    AnomalyInfo{BurnedKey, "burned-key", "a 400 made the key unusable: validation must happen before the key is stored",
                2},
    AnomalyInfo{KeyConflated, "key-conflated",
                "two keys that differ only in letter case or spaces were taken as one: a request was answered "
                "for another and never ran; compare keys exactly",
                2},
    AnomalyInfo{StuckKey, "stuck-key",
                "a key kept answering 409 in progress after its request had finished or its lease had run out: "
                "retrying cannot get an answer",
                4},
    AnomalyInfo{ScopeLeak, "scope-leak", "another client's or endpoint's key decided this request: keys must be scoped",
                6},
    AnomalyInfo{ExpiredKeyHonoured, "expired-key-honoured",
                "a key past the retention TTL it was given (on the lab clock) was still honoured: a client that waited "
                "the TTL out does not get a new request",
                6},
    AnomalyInfo{PolicyMismatch, "policy-mismatch", "GET /idempotency-policy does not describe what the server does", 6},
    AnomalyInfo{WrongStatus, "wrong-status", "the answer's status or problem type is not the contract's", 0},
    AnomalyInfo{BalanceDrift, "balance-drift", "balances disagree with the ledger, or money was created or destroyed",
                1},
    AnomalyInfo{UnexplainedEntry, "unexplained-entry", "the ledger holds a movement nobody asked for", 1},
    AnomalyInfo{NoResponse, "no-response", "the server gave no answer where the contract requires one", 0},
    AnomalyInfo{ContractShape, "contract-shape",
                "a response's fields, types or content type are not the contract's: clients will break", 0},
    AnomalyInfo{CorruptDatabase, "corrupt-database",
                "the database file fails PRAGMA integrity_check after crashes and restarts: nothing in it can be "
                "trusted any more",
                0},
    AnomalyInfo{IdleCpu, "idle-cpu",
                "the server kept a core busy while no request came: a loop that never waits (the sweeper "
                "between sweeps?) takes the machine from everything else on it",
                6},
    AnomalyInfo{OverLimit, "over-limit",
                "the server went over a limit every server runs under (memory, processes, its folder, a file's "
                "size, CPU time) and the grader ended it: a server that grows without bound fails in production "
                "too",
                0},
    // Its findings credit the stage of the model's rule they break (Finding::fixed_by, stageN.conformance).
    AnomalyInfo{DisallowedAnswer, "disallowed-answer",
                "no right server could have given that answer at that point of the history (the model of the "
                "contract keeps every answer one could give): a client acting on it acts on a wrong story",
                0},
};

}  // namespace

const AnomalyInfo& info(Anomaly anomaly) {
  for (const auto& a : kAnomalies)
    if (a.anomaly == anomaly) return a;
  throw std::logic_error("anomaly missing from kAnomalies");
}

std::string_view name(Anomaly anomaly) { return info(anomaly).name; }

int fixing_stage(const Finding& finding, int check_stage) {
  if (finding.fixed_by >= 0) return finding.fixed_by;
  const int own = info(finding.anomaly).fixed_by;
  return finding.hint.empty() && check_stage > 0 ? check_stage : own;
}

std::vector<AnomalyInfo> all_anomalies() { return {kAnomalies.begin(), kAnomalies.end()}; }

}  // namespace grader
