// port_in_use_test.cc: a second server on a port that is taken refuses to start (docs/reference/plumbing.md "Plumbing",
// Reliability: one server per port). cpp-httplib 0.11.4 sets SO_REUSEPORT, with which a second server on
// another database would start on the same port and take half of the connections.
#include <catch2/catch.hpp>

#include "tests/common/temp_dir.h"
#include "tests/e2e/stage_process.h"

using namespace lab::testing;

TEST_CASE("a second server on a taken port exits non-zero and says the port is in use", "[e2e][port]") {
  StageProcess first("stage1_naive");
  TempDir other;
  auto second = run_to_exit({binary_path("stage1_naive"), "--port", std::to_string(first.port()), "--db",
                             other.file("second.db"), "--admin-token", "x", "--quiet"},
                            5000);
  CHECK(second.status != 0);
  CHECK(second.status != -1);   // -1: it was still running (serving) when killed
  CHECK(second.stderr_text.find("port " + std::to_string(first.port()) + " is in use") != std::string::npos);
  CHECK(first.admin().get("/healthz").status == 200);
}
