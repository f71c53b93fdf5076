// common_routes.cc: the routes every stage shares. docs/reference/http-contract.md "The HTTP contract".
//   GET  /healthz                 200 once ready
//   GET  /problems                the registry of problem types
//   POST /admin/clients           {"name"} -> 201 {"id","token"}
//   POST /admin/accounts          {"client_id","balance","currency"} -> 201 {"id","client_id","balance","currency"}
//   GET  /admin/ledger?after=ID&limit=N -> {"entries":[...],"next"}
//   POST /admin/clock             {"advance_ms"} -> {"now_ms"}   (--lab-controls only)
//   GET  /accounts/{id}           the caller's own account, else 404
#include <httplib.h>

#include "common/admin_requests.h"
#include "common/auth.h"
#include "common/field_errors.h"
#include "common/http_reply.h"
#include "common/lab.h"

namespace lab {

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
    auto name = parse_new_client(*body);
    if (auto* problem = std::get_if<Problem>(&name)) return reply_problem(res, *problem);
    auto created = lab.bank.create_client(std::get<std::string>(name));
    reply_json(res, 201, {{"id", created.client.id}, {"name", created.client.name}, {"token", created.token}});
  });

  server.Post("/admin/accounts", [&lab, admin_token](const httplib::Request& req, httplib::Response& res) {
    if (!authorize_admin_or_reply(admin_token, req, res)) return;
    auto body = parse_json_object_or_reply(req, res);
    if (!body) return;
    auto parsed = parse_new_account(*body);
    if (auto* problem = std::get_if<Problem>(&parsed)) return reply_problem(res, *problem);
    const auto& wanted = std::get<NewAccount>(parsed);
    if (!lab.bank.find_client(wanted.client_id))
      return reply_problem(res, field_problem("client_id", "no such client"));
    auto account = lab.bank.create_account(wanted.client_id, wanted.balance, wanted.currency);
    reply_json(res, 201, account.to_json());
  });

  server.Get("/admin/ledger", [&lab, admin_token](const httplib::Request& req, httplib::Response& res) {
    if (!authorize_admin_or_reply(admin_token, req, res)) return;
    auto param = [&req](const char* name) {
      return req.has_param(name) ? std::optional(req.get_param_value(name)) : std::nullopt;
    };
    auto parsed = parse_ledger_query(param("after"), param("limit"));
    if (auto* problem = std::get_if<Problem>(&parsed)) return reply_problem(res, *problem);
    const auto& query = std::get<LedgerQuery>(parsed);
    // One row more than asked tells whether another page follows, so next is null on the last page.
    auto page = lab.bank.ledger_page(query.after, static_cast<int>(query.limit) + 1);
    bool more = static_cast<std::int64_t>(page.size()) > query.limit;
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
    auto advance_ms = parse_clock_advance(*body);
    if (auto* problem = std::get_if<Problem>(&advance_ms)) return reply_problem(res, *problem);
    auto now_ms = lab.clock.advance(std::get<std::int64_t>(advance_ms));
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
