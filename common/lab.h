// lab.h: what a stage server is made of, and the main() all stages share. docs/reference/plumbing.md "Plumbing".
//
// A stage's main.cc is only this:
//   constexpr lab::StageInfo kStage{"stage1_naive", "Stage 1: the naive transfer server. ..."};
//   int main(int argc, char** argv) {
//     return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
//       // the stage's own routes, its lesson: one handler serves POST /transfers and POST /payouts
//       lab::install_money_routes(lab, server, [&lab](const httplib::Request& req, httplib::Response& res,
//                                                     lab::Endpoint endpoint) {
//         handle_money_request(lab, req, res, endpoint);
//       });
//     });
//   }
// run_stage parses the options, opens the database, installs the routes every stage shares (health,
// admin, GET /accounts/{id}, GET /problems) and serves until SIGINT/SIGTERM.
#pragma once

#include <httplib.h>

#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/bank.h"
#include "common/db.h"
#include "common/lab_clock.h"
#include "common/lab_controls.h"
#include "common/options.h"

namespace lab {

// Everything a handler needs, built once at start-up and shared by all handler threads. Each member
// states its own thread safety; options is constant after construction.
struct Lab {
  explicit Lab(LabOptions opts)
      : options(std::move(opts)), db(options.db_path, options.sync), clock(db), bank(db, clock), controls(options.lab_controls) {}
  const LabOptions options;
  Database db;
  LabClock clock;
  Bank bank;
  const LabControls controls;
  // Threads a stage runs beside its handlers (stage 6's sweeper). Declared last, so they are stopped and
  // joined before the database they use is closed.
  std::vector<std::jthread> background_tasks;
};

struct StageInfo {
  std::string_view name;      // "stage1_naive"
  std::string_view summary;   // one paragraph for --help: what the stage teaches and what it still gets wrong
};

using RouteInstaller = std::function<void(Lab& lab, httplib::Server& server)>;

int run_stage(int argc, char** argv, const StageInfo& stage, const RouteInstaller& install_stage_routes);

// A money handler: the same function serves POST /transfers and POST /payouts.
using MoneyHandler = std::function<void(const httplib::Request& req, httplib::Response& res, Endpoint endpoint)>;
// Lab-Fail (docs/reference/lab-controls.md "Lab controls") is armed for each money request here, so no stage's handler needs a line for it.
void install_money_routes(Lab& lab, httplib::Server& server, const MoneyHandler& handle_money_request);

// The routes every stage shares (admin, health, accounts, problems). Used by run_stage and by tests.
void install_common_routes(Lab& lab, httplib::Server& server, const std::string& admin_token);

}  // namespace lab
