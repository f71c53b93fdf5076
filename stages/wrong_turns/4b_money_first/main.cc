// main.cc: WRONG TURN 4b, money before the key. LAB.md "Wrong turns".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "wrong_money_first",
    "WRONG TURN 4b (deliberately broken): stage 4 moving the money before recording the key. A crash in\n"
    "between (Lab-Crash: after-money) leaves money moved and no key; the retry moves it again."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
