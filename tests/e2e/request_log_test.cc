// request_log_test.cc: the server's log line per request carries no raw control byte, whatever the path or
// the key holds (docs/reference/plumbing.md "Plumbing", Reliability: the request log). httplib decodes %0a and %1b in the path.
#include <catch2/catch.hpp>

#include "tests/e2e/stage_process.h"

using namespace lab::testing;

namespace {

bool has_raw_control_byte_besides_newline(const std::string& text) {
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

}  // namespace

TEST_CASE("a path or key with %0a and %1b cannot forge a log line or a terminal escape", "[e2e][log]") {
  StartOptions logged;
  logged.log_to_file = true;
  StageProcess server("stage1_naive", {}, logged);
  auto admin = server.admin();
  admin.get("/nope%0aGET%20/admin/ledger%20key=-%20200%20replayed=no%200.1ms%1b[2J");
  admin.post("/transfers", "{}", {{"Idempotency-Key", "\"k\x1b[31m\""}});
  server.stop();
  std::string log = server.stderr_text();
  INFO(log);
  CHECK_FALSE(has_raw_control_byte_besides_newline(log));
  // The forged line is not a line of its own: only the real request's line starts with "GET /admin/ledger".
  CHECK(log.find("\nGET /admin/ledger") == std::string::npos);
  CHECK(log.find("/nope\\x0aGET /admin/ledger") != std::string::npos);
  CHECK(log.find("\\x1b[2J") != std::string::npos);
}
