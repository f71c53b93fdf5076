// options.cc: see options.h.
#include "common/options.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace lab {
namespace {

void print_usage(const char* program, std::string_view summary) {
  std::printf(
      "%.*s\n\n"
      "Usage: %s [--port P] [--db FILE|URI] [--admin-token T | --admin-token-file F] [--lab-controls]\n"
      "          [--lease S] [--key-ttl S] [--sync full|normal] [--host H] [--quiet]\n\n"
      "  --port P          TCP port, default 8080; 0 picks a free one (see the 'listening on' line)\n"
      "  --db FILE         SQLite database file, created if missing (default idempotency-lab.db)\n"
      "  --db URI          or a PostgreSQL database, postgresql://... (libpq URI), created if missing; several\n"
      "                    instances may share it (docs/reference/beyond-one-process.md \"Beyond one process\")\n"
      "  --admin-token T   bearer token for /admin/*; default: $LAB_ADMIN_TOKEN if set, else a random\n"
      "                    one, printed at start-up. On the command line any user of the machine can read\n"
      "                    it (/proc/PID/cmdline): prefer --admin-token-file or LAB_ADMIN_TOKEN\n"
      "  --admin-token-file F  read the admin token from file F (one trailing newline is dropped)\n"
      "  --lab-controls    honour Lab-Delay-Ms, Lab-Crash, Lab-Fail and POST /admin/clock (never in production)\n"
      "  --lease S         seconds a claimed key may stay in progress before a retry takes it over\n"
      "                    (stage 4 on; default 30)\n"
      "  --key-ttl S       seconds a key is remembered (stage 6; default 86400)\n"
      "  --sync full|normal  full (default): every answered transfer is on disk (fsync) before its answer,\n"
      "                    it survives a power cut; normal: faster, survives a crash of the process but\n"
      "                    not a power cut (docs/reference/plumbing.md \"Performance\", durability)\n"
      "  --host H          address to listen on, default 127.0.0.1 (loopback only)\n"
      "  --quiet           no log line per request\n"
      "  --help            this text\n\n"
      "The server prints 'listening on http://HOST:PORT' when ready; SIGINT or SIGTERM stop it.\n"
      "The HTTP contract is in docs/reference/http-contract.md and openapi.yaml.\n",
      static_cast<int>(summary.size()), summary.data(), program);
}

// LAB_ADMIN_TOKEN: the admin token from the environment, if neither flag gives one.
constexpr const char* kAdminTokenVariable = "LAB_ADMIN_TOKEN";

[[noreturn]] void usage_error(const char* program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\nTry '%s --help'.\n", program, message.c_str(), program);
  std::exit(2);
}

long long whole_number(const char* program, const std::string& option, const char* text, long long min,
                       long long max) {
  long long value = 0;
  const char* end = text + std::char_traits<char>::length(text);
  auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc() || stop != end || value < min || value > max)
    usage_error(program, option + " takes a whole number from " + std::to_string(min) + " to " +
                             std::to_string(max) + ", not '" + text + "'");
  return value;
}

std::string admin_token_from_file(const char* program, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) usage_error(program, "--admin-token-file: cannot read '" + path + "'");
  std::string token((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (token.ends_with('\n')) token.pop_back();
  if (token.ends_with('\r')) token.pop_back();
  if (token.empty()) usage_error(program, "--admin-token-file: '" + path + "' holds no token");
  if (token.find_first_of("\r\n") != std::string::npos)
    usage_error(program, "--admin-token-file: '" + path + "' holds more than one line");
  return token;
}

}  // namespace

LabOptions parse_options_or_exit(int argc, char** argv, std::string_view summary) {
  const char* program = argc > 0 ? argv[0] : "server";
  LabOptions options;
  bool token_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(program, arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      print_usage(program, summary);
      std::exit(0);
    } else if (arg == "--port") {
      options.port = static_cast<int>(whole_number(program, arg, value(), 0, 65535));
    } else if (arg == "--db") {
      options.db_path = value();
    } else if (arg == "--admin-token") {
      if (token_given) usage_error(program, "give one of --admin-token and --admin-token-file, once");
      token_given = true;
      options.admin_token = value();
      if (options.admin_token.empty()) usage_error(program, "--admin-token may not be empty");
    } else if (arg == "--admin-token-file") {
      if (token_given) usage_error(program, "give one of --admin-token and --admin-token-file, once");
      token_given = true;
      options.admin_token = admin_token_from_file(program, value());
    } else if (arg == "--lab-controls") {
      options.lab_controls = true;
    } else if (arg == "--lease") {
      options.lease = std::chrono::seconds(whole_number(program, arg, value(), 1, 7 * 24 * 3600));
    } else if (arg == "--key-ttl") {
      options.key_ttl = std::chrono::seconds(whole_number(program, arg, value(), 1, 365LL * 24 * 3600));
    } else if (arg == "--sync") {
      std::string level = value();
      if (level != "full" && level != "normal") usage_error(program, "--sync is full or normal, not '" + level + "'");
      options.sync = level == "full" ? Sync::Full : Sync::Normal;
    } else if (arg == "--host") {
      options.host = value();
    } else if (arg == "--quiet") {
      options.quiet = true;
    } else {
      usage_error(program, "unknown option '" + arg + "'");
    }
  }
  if (!token_given) {
    const char* from_environment = std::getenv(kAdminTokenVariable);
    if (from_environment != nullptr && *from_environment != '\0') options.admin_token = from_environment;
  }
  return options;
}

}  // namespace lab
