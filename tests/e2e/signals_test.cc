// signals_test.cc: every stage stops cleanly (exit status 0) on SIGTERM and on SIGINT, including stage 6,
// whose sweeper thread starts before the server (docs/reference/plumbing.md "Plumbing", Reliability: stopping). A thread that
// does not block the stop signals would take the signal with its default action and kill the process.
#include <catch2/catch.hpp>

#include <signal.h>

#include "tests/e2e/stage_process.h"

using namespace lab::testing;

namespace {

// The signal goes to whichever thread does not block it, so one start proves little: repeat.
constexpr int kRounds = 5;

void expect_clean_stop(const std::string& stage, int signal_number) {
  for (int round = 0; round < kRounds; ++round) {
    StageProcess server(stage);
    REQUIRE(server.admin().get("/healthz").status == 200);
    INFO(stage << " round " << round << " signal " << signal_number);
    CHECK(server.signal_and_wait(signal_number) == 0);
  }
}

}  // namespace

TEST_CASE("stage 6 exits 0 on SIGTERM", "[e2e][stage6][signals]") { expect_clean_stop("stage6_scope_ttl", SIGTERM); }

TEST_CASE("stage 6 exits 0 on SIGINT", "[e2e][stage6][signals]") { expect_clean_stop("stage6_scope_ttl", SIGINT); }

TEST_CASE("stage 5 exits 0 on SIGTERM and SIGINT", "[e2e][stage5][signals]") {
  expect_clean_stop("stage5_replay", SIGTERM);
  expect_clean_stop("stage5_replay", SIGINT);
}
