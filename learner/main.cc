// main.cc: the learner's server: the lab's plumbing (common/lab.h) with the learner's money handler.
// docs/learn/for-learners.md "For learners".
#include "common/lab.h"
#include "common/http_reply.h"
#include "idempotency_policy.h"
#include "money_handler.h"
#include "sweeper.h"

constexpr lab::StageInfo kStage{
    "learner_server",
    "The learner's server: one server that grows from stage 1 to stage 6, graded with `make grade STAGE=N`\n"
    "(docs/learn/for-learners.md \"For learners\")."};

int main(int argc, char** argv) {
  return lab::run_stage(argc, argv, kStage, [](lab::Lab& lab, httplib::Server& server) {
    KeyTable keys(lab.db);
    // LAB BEGIN 6 the sweeper deletes expired keys; the policy says how long keys are kept
    lab.background_tasks.emplace_back(run_sweeper, keys, std::cref(lab.clock));
    server.Get("/idempotency-policy", [&lab](const httplib::Request&, httplib::Response& res) {
      lab::reply_json(res, 200, idempotency_policy(lab.options));
    });
    // LAB END
    lab::install_money_routes(lab, server, [&lab, keys](const httplib::Request& req, httplib::Response& res,
                                                        lab::Endpoint endpoint) {
      handle_money_request(lab, keys, req, res, endpoint);
    });
  });
}
