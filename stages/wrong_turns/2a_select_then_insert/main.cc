// main.cc: WRONG TURN 2a, SELECT then INSERT. LAB.md "Wrong turns".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "wrong_select_then_insert",
    "WRONG TURN 2a (deliberately broken): stage 2 with SELECT-then-INSERT and no UNIQUE constraint.\n"
    "Two simultaneous retries both see no key and both move the money (Lab-Delay-Ms widens the window)."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
