// main.cc: the stage 1 server. LAB.md "Stage 1: the naive server".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "stage1_naive",
    "Stage 1: the naive transfer server. It executes every request it receives, so a retried transfer\n"
    "whose response was lost moves the money twice. It ignores Idempotency-Key."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    lab::install_money_routes(lab, server, [&lab](const httplib::Request& req, httplib::Response& res,
                                                  lab::Endpoint endpoint) {
      handle_money_request(lab, req, res, endpoint);
    });
  });
}
