// main.cc: the server: the lab's plumbing (common/lab.h) with this stage's money handler. What the stage
// teaches is in money_handler.cc; its name and --help summary are in stages/CMakeLists.txt.
#include "common/lab.h"
#include "money_handler.h"
#include "stage_info.h"

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
