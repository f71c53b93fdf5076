// main.cc: the stage 4 server. LAB.md "Stage 4: in_progress, then completed".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "stage4_two_phase",
    "Stage 4: in_progress, then completed. A repeat while the first request runs gets 409; money and\n"
    "completion commit together, so a crash never leaves a lie; a dead claim is taken over after its lease\n"
    "(--lease), fenced. A repeat after completion still gets a body rebuilt now, not the first response."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
