// main.cc: WRONG TURN 3a, a fingerprint of the raw body. LAB.md "Wrong turns".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "wrong_raw_fingerprint",
    "WRONG TURN 3a (deliberately broken): stage 3 fingerprinting the raw body bytes. The same request with\n"
    "members in another order, other spacing or other escapes is refused with 422."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
