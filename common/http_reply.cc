// http_reply.cc: see http_reply.h.
#include "common/http_reply.h"

#include <httplib.h>

#include "common/field_errors.h"
#include "common/money_request.h"

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
  if (!is_json_media_type(req.get_header_value("Content-Type"))) {
    reply_problem(res, Problem::Of(ProblemType::UnsupportedMediaType, "expected Content-Type: application/json"));
    return std::nullopt;
  }
  auto parsed = parse_canonical_json(req.body);
  if (auto* error = std::get_if<JsonError>(&parsed)) {
    reply_problem(res, json_problem(*error));
    return std::nullopt;
  }
  auto& value = std::get<CanonicalJson>(parsed).value;
  if (!value.is_object()) {
    reply_problem(res, field_problem("(body)", "must be a JSON object"));
    return std::nullopt;
  }
  return std::move(value);
}

}  // namespace lab
