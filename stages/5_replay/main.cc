// main.cc: the stage 5 server. LAB.md "Stage 5: replay the stored response".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "stage5_replay",
    "Stage 5: replay the stored response. Every repeat after completion gets the first response byte for\n"
    "byte, with Idempotent-Replayed: true. Keys are still global (another client's key replays a stranger's\n"
    "response) and they never expire."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
