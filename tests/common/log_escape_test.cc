// log_escape_test.cc: escape_for_log, which keeps a client's bytes from forging log lines or driving the
// reader's terminal (docs/reference/plumbing.md "Plumbing", Reliability: the request log).
#include <catch2/catch.hpp>

#include <string>

#include "common/http_server.h"

using lab::escape_for_log;

TEST_CASE("escape_for_log leaves printable ASCII alone", "[log]") {
  CHECK(escape_for_log("") == "");
  CHECK(escape_for_log("/transfers key=\"k-1\" ~!@#$%^&*()") == "/transfers key=\"k-1\" ~!@#$%^&*()");
}

TEST_CASE("escape_for_log writes control bytes, DEL, non-ASCII and the backslash as \\xHH", "[log]") {
  CHECK(escape_for_log("a\nb") == "a\\x0ab");
  CHECK(escape_for_log("\r\n\t") == "\\x0d\\x0a\\x09");
  CHECK(escape_for_log("\x1b[2J") == "\\x1b[2J");
  CHECK(escape_for_log(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(escape_for_log("\x7f") == "\\x7f");
  CHECK(escape_for_log("\xc3\xa9") == "\\xc3\\xa9");   // é in UTF-8: bytes, not characters
  CHECK(escape_for_log("\\x0a") == "\\x5cx0a");          // a literal \x0a cannot pass for an escaped newline
}

TEST_CASE("escape_for_log output has no byte outside printable ASCII", "[log]") {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (unsigned char c : escape_for_log(all)) CHECK((c >= 0x20 && c < 0x7f));
}
