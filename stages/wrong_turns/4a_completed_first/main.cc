// main.cc: WRONG TURN 4a, "completed" before the money. LAB.md "Wrong turns".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "wrong_completed_first",
    "WRONG TURN 4a (deliberately broken): stage 4 marking the key completed before the money moves. A crash\n"
    "in between (Lab-Crash: before-money) leaves a completed key without money; retries are told success."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
