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

// Reads the JSON body of an admin request; answers 415/400 itself.
std::optional<nlohmann::json> parse_json_object_or_reply(const httplib::Request& req, httplib::Response& res);

}  // namespace lab
