// http_reply.cc: see http_reply.h.
#include "common/http_reply.h"

#include <httplib.h>

#include "common/admin_requests.h"

namespace lab {

void reply_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // Bodies are built from validated input and the database, so they are UTF-8; `replace` makes sure that a
  // byte that slipped through becomes U+FFFD in the answer instead of an exception (as in reply_problem).
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

void reply_outcome(httplib::Response& res, const MoneyOutcome& outcome) {
  if (auto* entry = std::get_if<LedgerEntry>(&outcome))
    reply_json(res, 201, entry->to_json());
  else
    reply_problem(res, std::get<Problem>(outcome));
}

namespace {
void set_retry_after(httplib::Response& res) { res.set_header("Retry-After", std::to_string(kRetryAfterSeconds)); }
}  // namespace

void reply_in_progress(httplib::Response& res) {
  reply_problem(res, Problem::Of(ProblemType::RequestInProgress,
                                 "the first request with this key is still running; retry later"));
  set_retry_after(res);
}

void reply_database_busy(httplib::Response& res) {
  reply_problem(res, Problem::Of(ProblemType::ServiceUnavailable, "the database is busy, retry"));
  set_retry_after(res);
}

std::optional<nlohmann::json> parse_json_object_or_reply(const httplib::Request& req, httplib::Response& res) {
  auto parsed = parse_json_object(req.get_header_value("Content-Type"), req.body);
  if (auto* problem = std::get_if<Problem>(&parsed)) {
    reply_problem(res, *problem);
    return std::nullopt;
  }
  return std::get<nlohmann::json>(std::move(parsed));
}

}  // namespace lab
