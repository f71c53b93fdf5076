// idempotency_policy.cc: see idempotency_policy.h. Every value comes from the code or the options in force.
#include "idempotency_policy.h"

#include "common/http_reply.h"
#include "common/idempotency_key.h"
#include "sweeper.h"

nlohmann::json idempotency_policy(const lab::LabOptions& options) {
  return {
      {"scope", {"client", "endpoint", "key"}},
      {"endpoints", {"/transfers", "/payouts"}},
      {"key_ttl_seconds", options.key_ttl.count()},
      {"lease_seconds", options.lease.count()},
      {"retry_after_seconds", lab::kRetryAfterSeconds},
      {"sweep_interval_seconds", std::chrono::duration_cast<std::chrono::seconds>(kSweepInterval).count()},
      {"key_syntax",
       {{"header", "Idempotency-Key"},
        {"format", "RFC 8941 sf-string"},
        {"bare_keys_accepted", true},
        {"characters", "printable ASCII 0x20-0x7E"},
        {"min_length", 1},
        {"max_length", lab::kMaxKeyLength}}},
      {"fingerprint", {{"algorithm", "SHA-256"}, {"input", "RFC 8785 canonical form of the whole request body"}}},
      {"stored_statuses", {201, 400, 402, 404}},
      {"not_stored", "validation errors (400 before the key is claimed) and 5xx (the claim is released)"},
      {"replay_header", "Idempotent-Replayed"},
      {"in_progress", {{"status", 409}, {"type", "/problems/request-in-progress"}}},
      {"body_mismatch", {{"status", 422}, {"type", "/problems/idempotency-key-reused"}}},
      {"rule", "Retention must outlast your retry horizon: a retry sent after key_ttl_seconds is a new request."},
  };
}
