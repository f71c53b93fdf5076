// lab.cc: run_stage, the main() every stage shares. See lab.h.
#include "common/lab.h"

#include <httplib.h>

#include <cstdio>
#include <memory>

#include "common/guarded_server.h"
#include "common/http_server.h"
#include "common/token.h"

namespace lab {
constexpr std::size_t kAdminTokenBytes = 16;   // 128 random bits for a token printed at start-up

void install_money_routes(Lab& lab, httplib::Server& server, const MoneyHandler& handle_money_request) {
  const LabControls* controls = &lab.controls;
  Database* db = &lab.db;
  for (Endpoint endpoint : {Endpoint::Transfers, Endpoint::Payouts})
    server.Post(std::string(path_of(endpoint)),
                [controls, db, handle_money_request, endpoint](const httplib::Request& req, httplib::Response& res) {
                  LabFault fault = controls->fault_if_asked(req);   // disarmed when the request ends
                  CommitCrash crash = controls->commit_crash_if_asked(req);   // so is this
                  handle_money_request(req, res, endpoint);
                  // At --sync full a commit is visible before it is on disk (group_commit.h): a repeat may
                  // have read one. No answer leaves before what it was built from is durable.
                  db->wait_until_durable();
                });
}

int run_stage(int argc, char** argv, const StageInfo& stage, const RouteInstaller& install_stage_routes) {
  // Before any thread exists (stage 6's sweeper starts in install_stage_routes), so all of them inherit it.
  block_stop_signals();
  LabOptions options = parse_options_or_exit(argc, argv, stage.summary);
  std::unique_ptr<Lab> lab;
  try {
    lab = std::make_unique<Lab>(options);
  } catch (const DatabaseError& e) {
    std::fprintf(stderr, "%s: cannot use database %s: %s\n", std::string(stage.name).c_str(),
                 Database::printable(options.db_path).c_str(), e.what());
    return 1;
  }
  lab->db.end_of_request();   // the start-up thread's connection (the schema), back to the pool
  std::string admin_token =
      options.admin_token.empty() ? random_token("adm_", kAdminTokenBytes) : options.admin_token;
  if (options.admin_token.empty()) std::fprintf(stderr, "admin token: %s\n", admin_token.c_str());
  std::fprintf(stderr, "%s: database %s%s\n", std::string(stage.name).c_str(), Database::printable(options.db_path).c_str(),
               options.lab_controls ? ", lab controls ON (Lab-Delay-Ms, Lab-Crash, Lab-Fail, /admin/clock)" : "");

  GuardedServer server;
  // The database connection this thread used for the request goes back to the pool (PostgreSQL; db.h).
  configure_server(server, !options.quiet, [db = &lab->db] { db->end_of_request(); });
  install_common_routes(*lab, server, admin_token);
  install_stage_routes(*lab, server);
  return serve_until_signalled(server, options.host, options.port);
}

}  // namespace lab
