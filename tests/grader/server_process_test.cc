// server_process_test.cc: a server the grader's watch ends for a limit before it answered GET /healthz is
// said to have gone over that limit, not to have ended by itself (issue 57: under TSan, hostile fork-many's
// stage 6 server was slower to start than its helper's 300 children, and the grader said "the server ended
// before it answered GET /healthz (signal 9)"). grader/wire/server_process.h.
#include <catch2/catch.hpp>

#include <string>

#include "grader/wire/server_process.h"

using namespace grader;

namespace {

// A "server" that never listens and keeps more processes than its limit: the watch's first sample ends it.
constexpr const char* kForksAndNeverListens = "for i in 1 2 3 4 5 6 7 8; do sleep 30 & done; wait";

std::string start_error(ServerProcess& server) {
  try {
    server.start();
  } catch (const StartError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a server ended for its process limit before /healthz: the start error names the limit") {
  ServerLimits limits;
  limits.processes = 4;
  ServerProcess server(kForksAndNeverListens, limits);
  const std::string error = start_error(server);
  INFO(error);
  CHECK(error.find("could not start the server.") == 0);
  CHECK(error.find("over-limit: the grader ended the server: it ran ") != std::string::npos);
  CHECK(error.find("processes; its limit is 4 (before it answered GET /healthz)") != std::string::npos);
  CHECK(error.find("ended before it answered") == std::string::npos);
  // What the checks' runner reads (runner.cc): still set after the start failed, for the check's verdict.
  CHECK(server.limit_hit().find("its limit is 4") != std::string::npos);
  CHECK_FALSE(server.alive());
}

TEST_CASE("a server that ends by itself before /healthz is still told as ended, with how") {
  ServerProcess server("exit 3");
  const std::string error = start_error(server);
  INFO(error);
  CHECK(error.find("the server ended before it answered GET /healthz (exit 3)") != std::string::npos);
  CHECK(server.limit_hit().empty());
}
