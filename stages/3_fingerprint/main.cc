// main.cc: the stage 3 server. LAB.md "Stage 3: the canonical fingerprint".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "stage3_fingerprint",
    "Stage 3: the canonical fingerprint. A key reused with another body is refused (422); the same body in\n"
    "another key order or spacing is the same request. A repeat is still told \"already processed\" while\n"
    "the first request runs, or after it crashed before the money moved."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
