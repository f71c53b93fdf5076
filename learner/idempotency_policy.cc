// idempotency_policy.cc: see idempotency_policy.h (stage 6's own, used as it is: from_stage6.txt); this file is
// stage 6's with its lesson as a region. Every value comes from the code or the options in force, so the
// published policy cannot drift from what the server does.
#include "idempotency_policy.h"

#include <set>

#include "common/bank.h"
#include "common/http_reply.h"
#include "common/idempotency_key.h"
#include "common/money_request.h"
#include "sweeper.h"

using namespace lab;

// What a problem of this type looks like on the wire: {"status": 409, "type": "/problems/..."}.
static nlohmann::json problem_summary(ProblemType type) {
  return {{"status", info(type).status}, {"type", type_uri(type)}};
}

nlohmann::json idempotency_policy(const LabOptions& options) {
  // LAB BEGIN 6 the published policy: every value from the code or the options in force
  nlohmann::json endpoints = nlohmann::json::array();
  for (Endpoint endpoint : kEndpoints) endpoints.push_back(path_of(endpoint));
  // The outcomes that complete a key (money_handler.cc): the 201 of a ledger entry, or a money problem.
  std::set<int> stored_statuses{201};
  for (ProblemType problem : kMoneyProblems) stored_statuses.insert(info(problem).status);
  return {
      {"scope", {"client", "endpoint", "key"}},
      {"endpoints", endpoints},
      {"key_ttl_seconds", options.key_ttl.count()},
      {"lease_seconds", options.lease.count()},
      {"retry_after_seconds", kRetryAfterSeconds},
      {"sweep_interval_seconds", std::chrono::duration_cast<std::chrono::seconds>(kSweepInterval).count()},
      {"key_syntax",
       {{"header", "Idempotency-Key"},
        {"format", "RFC 8941 sf-string"},
        {"bare_keys_accepted", true},
        {"characters", "printable ASCII 0x20-0x7E"},
        {"min_length", 1},
        {"max_length", kMaxKeyLength}}},
      {"fingerprint", {{"algorithm", "SHA-256"}, {"input", "RFC 8785 canonical form of the whole request body"}}},
      {"stored_statuses", stored_statuses},
      {"not_stored", "validation errors (400 before the key is claimed) and 5xx (the claim is released)"},
      {"replay_header", kReplayedHeader},
      {"in_progress", problem_summary(ProblemType::RequestInProgress)},
      {"body_mismatch", problem_summary(ProblemType::IdempotencyKeyReused)},
      {"rule", "Retention must outlast your retry horizon: a retry sent after key_ttl_seconds is a new request."},
  };
  // LAB ELSE
  return nlohmann::json::object();
  // LAB END
}
