// main.cc: WRONG TURN 2b, INSERT OR IGNORE. LAB.md "Wrong turns".
#include "common/lab.h"
#include "money_handler.h"

constexpr lab::StageInfo kStage{
    "wrong_insert_or_ignore",
    "WRONG TURN 2b (deliberately broken): stage 2 with INSERT OR IGNORE. The repeat is silently ignored by\n"
    "SQLite, the handler never learns it is a repeat, and every retry moves the money again."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
