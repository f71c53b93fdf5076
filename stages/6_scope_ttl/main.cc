// main.cc: the server: the lab's plumbing (common/lab.h) with this stage's money handler. What the stage
// teaches is in money_handler.cc; its name and --help summary are in stages/CMakeLists.txt.
#include "common/lab.h"
#include "common/http_reply.h"
#include "idempotency_policy.h"
#include "money_handler.h"
#include "stage_info.h"
#include "sweeper.h"

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab.background_tasks.emplace_back(run_sweeper, keys, std::cref(lab.clock));
    server.Get("/idempotency-policy", [&lab](const httplib::Request&, httplib::Response& res) {
      lab::reply_json(res, 200, idempotency_policy(lab.options));
    });
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
