// common_routes.cc: the routes every stage shares. LAB.md "The HTTP contract".
//   GET  /healthz                 200 once ready
//   GET  /problems                the registry of problem types
//   POST /admin/clients           {"name"} -> 201 {"id","token"}
//   POST /admin/accounts          {"client_id","balance","currency"} -> 201 {"id","client_id","balance","currency"}
//   GET  /admin/ledger?after=ID&limit=N -> {"entries":[...],"next"}
//   POST /admin/clock             {"advance_ms"} -> {"now_ms"}   (--lab-controls only)
//   GET  /accounts/{id}           the caller's own account, else 404
#include <httplib.h>

#include <charconv>

#include "common/auth.h"
#include "common/field_errors.h"
#include "common/http_reply.h"
#include "common/lab.h"

namespace lab {
namespace {

// The limits of the admin endpoints. Each error message is built from its constant, so the two never disagree.
// (POST /admin/clock's advance_ms is bounded by the clock itself: LabClock::kMaxAdvanceMs, kMaxOffsetMs.)
constexpr std::size_t kMaxClientNameBytes = 100;   // UTF-8 bytes: a label for a person or team, not a document
constexpr long long kLedgerPageDefault = 100;      // entries per page when the request names no limit
constexpr long long kLedgerPageMax = 1000;         // entries per page: bounds one response (an entry is
                                                   // 0.2 to 2.5 KB of JSON, metadata included)

std::optional<long long> query_number(const httplib::Request& req, const char* name, long long fallback) {
  if (!req.has_param(name)) return fallback;
  std::string text = req.get_param_value(name);
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

bool is_whole(const nlohmann::json& v, long long min, long long max) {
  return v.is_number_integer() && !(v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) &&
         v.get<long long>() >= min && v.get<long long>() <= max;
}

}  // namespace

void install_common_routes(Lab& lab, httplib::Server& server, const std::string& admin_token) {
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    reply_json(res, 200, {{"status", "ok"}});
  });
  server.Get("/problems", [](const httplib::Request&, httplib::Response& res) {
    reply_json(res, 200, problem_registry_json());
  });

  server.Post("/admin/clients", [&lab, admin_token](const httplib::Request& req, httplib::Response& res) {
    if (!authorize_admin_or_reply(admin_token, req, res)) return;
    auto body = parse_json_object_or_reply(req, res);
    if (!body) return;
    auto name = body->find("name");
    if (name == body->end() || !name->is_string() || name->get<std::string>().empty() ||
        name->get<std::string>().size() > kMaxClientNameBytes)
      return reply_problem(
          res, field_problem("name", "must be a string of 1 to " + std::to_string(kMaxClientNameBytes) + " bytes"));
    auto created = lab.bank.create_client(name->get<std::string>());
    reply_json(res, 201, {{"id", created.client.id}, {"name", created.client.name}, {"token", created.token}});
  });

  server.Post("/admin/accounts", [&lab, admin_token](const httplib::Request& req, httplib::Response& res) {
    if (!authorize_admin_or_reply(admin_token, req, res)) return;
    auto body = parse_json_object_or_reply(req, res);
    if (!body) return;
    const auto& b = *body;
    if (!b.contains("client_id") || !is_whole(b["client_id"], 1, kMaxExactJsonInteger))   // ids are JSON integers
      return reply_problem(res, field_problem("client_id", "must be a client id"));
    if (!b.contains("balance") || !is_whole(b["balance"], 0, kMaxMinorUnits))
      return reply_problem(res, field_problem("balance", "must be an integer from 0 to 2^53 - 1 (minor units)"));
    if (!b.contains("currency") || !b["currency"].is_string() || !is_currency_code(b["currency"].get<std::string>()))
      return reply_problem(res, field_problem("currency", kCurrencyCodeRule));
    auto client_id = b["client_id"].get<std::int64_t>();
    if (!lab.bank.find_client(client_id))
      return reply_problem(res, field_problem("client_id", "no such client"));
    auto account = lab.bank.create_account(client_id, b["balance"].get<std::int64_t>(), b["currency"].get<std::string>());
    reply_json(res, 201, account.to_json());
  });

  server.Get("/admin/ledger", [&lab, admin_token](const httplib::Request& req, httplib::Response& res) {
    if (!authorize_admin_or_reply(admin_token, req, res)) return;
    auto after = query_number(req, "after", 0);
    auto limit = query_number(req, "limit", kLedgerPageDefault);
    FieldErrors errors;
    if (!after) errors.add("after", "must be a whole number: the id of the last entry seen, 0 for the first page");
    if (!limit || *limit < 1 || *limit > kLedgerPageMax)
      errors.add("limit", "must be a whole number of entries from 1 to " + std::to_string(kLedgerPageMax));
    if (!errors.empty()) return reply_problem(res, errors.to_problem());
    // One row more than asked tells whether another page follows, so next is null on the last page.
    auto page = lab.bank.ledger_page(*after, static_cast<int>(*limit) + 1);
    bool more = static_cast<long long>(page.size()) > *limit;
    if (more) page.pop_back();
    nlohmann::json entries = nlohmann::json::array();
    for (const auto& entry : page) entries.push_back(entry.to_ledger_json());
    nlohmann::json next = more ? nlohmann::json(page.back().id) : nullptr;
    reply_json(res, 200, {{"entries", entries}, {"next", next}});
  });

  server.Post("/admin/clock", [&lab, admin_token](const httplib::Request& req, httplib::Response& res) {
    if (!authorize_admin_or_reply(admin_token, req, res)) return;
    if (!lab.controls.enabled())
      return reply_problem(res, Problem::Of(ProblemType::LabControlsDisabled, "start the server with --lab-controls"));
    auto body = parse_json_object_or_reply(req, res);
    if (!body) return;
    if (!body->contains("advance_ms") || !is_whole((*body)["advance_ms"], 0, LabClock::kMaxAdvanceMs))
      return reply_problem(res, field_problem("advance_ms", "must be a whole number of milliseconds from 0 to " +
                                                                std::to_string(LabClock::kMaxAdvanceMs)));
    auto now_ms = lab.clock.advance((*body)["advance_ms"].get<std::int64_t>());
    if (!now_ms)
      return reply_problem(res, field_problem("advance_ms", "would put the lab clock more than " +
                                                                std::to_string(LabClock::kMaxOffsetMs) +
                                                                " ms ahead of real time"));
    reply_json(res, 200, {{"now_ms", *now_ms}});
  });

  server.Get(R"(/accounts/(\d{1,16}))", [&lab](const httplib::Request& req, httplib::Response& res) {
    auto client = authenticate_or_reply(lab.bank, req, res);
    if (!client) return;
    auto account = lab.bank.find_account(std::stoll(req.matches[1]));
    // Someone else's account answers exactly like a missing one: existence is not revealed.
    if (!account || account->client_id != client->id)
      return reply_problem(res, Problem::Of(ProblemType::NotFound, "no account " + std::string(req.matches[1])));
    reply_json(res, 200, account->to_json());
  });
}

}  // namespace lab
