// main.cc: the stage 2 server. LAB.md "Stage 2: a key table with a UNIQUE constraint".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "stage2_unique_key",
    "Stage 2: a key table with a UNIQUE constraint. A repeated Idempotency-Key moves no money, but it is\n"
    "answered \"already processed\" whatever its body, even while the first request still runs."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
