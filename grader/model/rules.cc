// rules.cc: the rule table (rules.h), the one list of the model's rules; contract.h names them in short.
#include "grader/model/rules.h"

#include <array>
#include <cstdlib>
#include <string>

#include "grader/model/lessons.h"

namespace grader::model {

namespace {
constexpr std::array kRules{
    Rule{"M1", "a request without a known bearer token is 401 unauthorized, with WWW-Authenticate: Bearer, and changes nothing",
         "docs/reference/http-contract.md \"Authentication\""},
    Rule{"M2", "a missing or malformed Idempotency-Key is 400 with its own idempotency-key-* type, before the body, and changes nothing",
         "docs/reference/http-contract.md \"The Idempotency-Key header\""},
    Rule{"M3", "a body that is not a valid request is 415, 413, 400 json-* or 400 invalid-field, in that order, and never touches the key table",
         "docs/reference/http-contract.md \"Status codes and their order\""},
    Rule{"M4", "the bank answers 404, 400 currency-mismatch, 402, 422 balance-limit, in that order, and then moves nothing",
         "docs/reference/http-contract.md \"Status codes and their order\""},
    Rule{"M5", "a request that runs and passes the bank answers 201 with its ledger entry and from_balance_after, and moves the money once",
         "docs/reference/http-contract.md \"Client endpoints (client token)\""},
    Rule{"M6", "every error is an application/problem+json document whose type and status are the contract's",
         "docs/reference/http-contract.md \"Errors: problem+json\""},
    Rule{"M7", "a repeated key moves no money: only the request that claimed the key runs",
         "docs/learn/stage-2-unique-key.md \"The design\""},
    Rule{"M8", "stages 2-3: a repeat is answered 200 {\"status\":\"already processed\"}",
         "docs/learn/stage-2-unique-key.md \"Status codes\""},
    Rule{"M9", "a key reused with another canonical body is 422 idempotency-key-reused, and nothing moves; the same body in any spelling is the same request",
         "docs/learn/stage-3-fingerprint.md \"The design\""},
    Rule{"M10", "a repeat while the first request holds its lease is 409 request-in-progress with Retry-After",
         "docs/learn/stage-4-two-phase.md \"The design\""},
    Rule{"M11", "a claim whose lease ran out is taken over by the repeat, which runs; the old holder is fenced out with 409 and moves nothing",
         "docs/learn/stage-4-two-phase.md \"The design\""},
    Rule{"M12", "a repeat after completion gets the first outcome (its status, problem type, ledger entry), not 'already processed'",
         "docs/learn/stage-4-two-phase.md \"The design\""},
    Rule{"M13", "the money and the key's completion go together: a crash leaves the claim without money, or both, and a repeat never finds a completion without its outcome",
         "docs/learn/stage-4-two-phase.md \"The key's life\""},
    Rule{"M14", "Lab-Fail: busy is 503 with Retry-After and moves nothing (from stage 4 it releases the claim: M22)",
         "docs/reference/lab-controls.md \"Lab controls\""},
    Rule{"M15", "a repeat after completion gets the first answer's status, Content-Type and body byte for byte with Idempotent-Replayed: true; a first answer never carries it",
         "docs/learn/stage-5-replay.md \"The design\""},
    Rule{"M16", "a key belongs to (client, endpoint, key): another client's or endpoint's use of the string is another request",
         "docs/learn/stage-6-scope-ttl.md \"The design\""},
    Rule{"M17", "a key is forgotten after --key-ttl (lab clock) unless its lease still runs: the same request then runs again",
         "docs/learn/stage-6-scope-ttl.md \"The design\""},
    Rule{"M18", "Lab-Crash ends the process with no answer at its point; what it committed stays (the key table from stage 2: M24)",
         "docs/reference/lab-controls.md \"Lab controls\""},
    Rule{"M19", "a request to a server that is down gets no answer; a live server answers every request",
         "docs/reference/http-contract.md \"The process\""},
    Rule{"M20", "GET /accounts/{id} is 200 with the balance the model holds for the caller's own account, 404 for any other",
         "docs/reference/http-contract.md \"Client endpoints (client token)\""},
    Rule{"M21", "admin endpoints: clients and accounts are 201 with their fields (an unknown client_id is 400 invalid-field); POST /admin/clock moves the lab clock, 403 without --lab-controls",
         "docs/reference/http-contract.md \"Admin endpoints (admin token)\""},
    Rule{"M22", "from stage 4 a failure that is not the request's fault (a busy 503) releases the claim: the retry runs, it is not answered as a repeat",
         "docs/learn/stage-4-two-phase.md \"The design\""},
    Rule{"M23", "a 409 request-in-progress or a 503 carries Retry-After, a positive whole number of seconds",
         "docs/reference/http-contract.md \"Status codes and their order\""},
    Rule{"M24", "the key table outlives a restart of the process: a key claimed before it is still known after it, so its repeat is a repeat, not a new request",
         "docs/learn/stage-2-unique-key.md \"The design\""},
};
}  // namespace

const Rule& rule(std::string_view id) {
  for (const Rule& r : kRules)
    if (id == r.id) return r;
  std::abort();
}

int rule_stage(std::string_view id) {
  const std::string_view chapter = rule(id).chapter;
  for (const LessonRow& lesson : kLessons)
    if (chapter.starts_with(std::string(lesson.chapter) + " ")) return lesson.stage;
  return 0;
}

}  // namespace grader::model
