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

// The Retry-After of every answer that asks the client to come back (409 and 503 below), in seconds.
// A polling interval: most requests finish well within it, and a busy database is free again sooner; the
// lease (--lease) only bounds how long a dead holder blocks its key. Not read from the lab clock: it is
// a hint, not a deadline (docs/reference/plumbing.md "The lab clock").
inline constexpr int kRetryAfterSeconds = 1;
// The header that marks a repeat's answer as the stored response of the first request (stage 5 on).
inline constexpr char kReplayedHeader[] = "Idempotent-Replayed";

// 409 request-in-progress with Retry-After: the first request with this key is still running.
void reply_in_progress(httplib::Response& res);

// 503 service-unavailable with Retry-After: the database stayed busy past its timeout (DatabaseBusy), so
// nothing was recorded. Sent by the server's exception handler (http_server.cc:configure_server).
void reply_database_busy(httplib::Response& res);

// Reads the JSON body of an admin request (admin_requests.h:parse_json_object); answers 415/400 itself.
std::optional<nlohmann::json> parse_json_object_or_reply(const httplib::Request& req, httplib::Response& res);

}  // namespace lab
