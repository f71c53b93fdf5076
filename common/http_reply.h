// http_reply.h: small helpers that write whole responses, so handlers show decisions, not plumbing.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "common/bank.h"

namespace httplib { struct Request; struct Response; }

namespace lab {

void reply_json(httplib::Response& res, int status, const nlohmann::json& body);

// A money request's outcome: 201 with the ledger entry, or the business problem (404, 400, 402).
void reply_outcome(httplib::Response& res, const MoneyOutcome& outcome);

// 409 request-in-progress with Retry-After: the first request with this key is still running.
// kRetryAfterSeconds is a polling interval: most requests finish well within it; the lease (--lease)
// only bounds how long a dead holder blocks its key.
inline constexpr int kRetryAfterSeconds = 1;
// The header that marks a repeat's answer as the stored response of the first request (stage 5 on).
inline constexpr char kReplayedHeader[] = "Idempotent-Replayed";
void reply_in_progress(httplib::Response& res);

// Reads the JSON body of an admin request; answers 415/400 itself.
std::optional<nlohmann::json> parse_json_object_or_reply(const httplib::Request& req, httplib::Response& res);

}  // namespace lab
