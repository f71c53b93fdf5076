// main.cc: the stage 6 server. LAB.md "Stage 6: scope and retention".
#include "common/lab.h"
#include "common/http_reply.h"
#include "idempotency_policy.h"
#include "money_handler.h"
#include "sweeper.h"

constexpr lab::StageInfo kStage{
    "stage6_scope_ttl",
    "Stage 6: scope and retention. Keys are scoped by (client, endpoint, key) and expire after --key-ttl\n"
    "(lab clock); a sweeper deletes expired keys in batches. The policy is published at\n"
    "GET /idempotency-policy."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    lab.background_tasks.emplace_back(run_sweeper, keys, std::cref(lab.clock));
    server.Get("/idempotency-policy", [&lab](const httplib::Request&, httplib::Response& res) {
      lab::reply_json(res, 200, idempotency_policy(lab.options));
    });
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
