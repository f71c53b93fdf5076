// admin_token_sources_test.cc: the admin token need not be on the command line, where /proc/PID/cmdline
// shows it to every user of the machine: --admin-token-file FILE and LAB_ADMIN_TOKEN work too (docs/reference/http-contract.md "The
// process").
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/common/temp_dir.h"
#include "tests/e2e/stage_process.h"

using namespace lab::testing;

namespace {

void expect_admin_token_works(const StageProcess& server) {
  CHECK(server.admin().get("/admin/ledger").status == 200);
  CHECK(LabClient(server.port(), "not-the-token").get("/admin/ledger").status == 401);
}

}  // namespace

TEST_CASE("the admin token can come from --admin-token-file", "[e2e][admin-token]") {
  TempDir dir;
  std::string file = dir.file("admin-token");
  std::ofstream(file) << StageProcess::kAdminToken << "\n";   // one trailing newline is not part of the token
  StartOptions no_flag;
  no_flag.admin_token_flag = false;
  StageProcess server("stage1_naive", {"--admin-token-file", file}, no_flag);
  expect_admin_token_works(server);
}

TEST_CASE("the admin token can come from LAB_ADMIN_TOKEN", "[e2e][admin-token]") {
  StartOptions from_environment;
  from_environment.admin_token_flag = false;
  from_environment.env = {std::string("LAB_ADMIN_TOKEN=") + StageProcess::kAdminToken};
  StageProcess server("stage1_naive", {}, from_environment);
  expect_admin_token_works(server);
}

TEST_CASE("an admin token file that cannot be read, or is empty, stops the server with exit status 2",
          "[e2e][admin-token]") {
  TempDir dir;
  std::ofstream(dir.file("empty"));
  for (std::string file : {dir.file("missing"), dir.file("empty")}) {
    INFO(file);
    auto run = run_to_exit({binary_path("stage1_naive"), "--port", "0", "--db", dir.file("lab.db"),
                            "--admin-token-file", file},
                           5000);
    CHECK(run.status == 2);
    CHECK(run.stderr_text.find("--admin-token-file") != std::string::npos);
  }
}
