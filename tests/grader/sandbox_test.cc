// sandbox_test.cc: the bwrap command line of grader --sandbox (grader/wire/sandbox.h), set up folder by
// folder, and the command lines it refuses. What the server really sees: tests/grader/check_sandbox.py.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "grader/cli/options.h"
#include "grader/wire/sandbox.h"

namespace fs = std::filesystem;
using grader::bwrap_command;

namespace {

// Where `word value...` starts in args, or -1.
long at(const std::vector<std::string>& args, const std::vector<std::string>& words) {
  auto it = std::search(args.begin(), args.end(), words.begin(), words.end());
  return it == args.end() ? -1 : static_cast<long>(it - args.begin());
}

struct Class {
  fs::path root = fs::temp_directory_path() / ("sandbox-test-" + std::to_string(::getpid()));
  fs::path me = root / "subs" / "me", other = root / "subs" / "other", inner_out = me / "out",
           own = root / "tmp" / "grader-x";
  Class() {
    for (const auto& f : {me, other, inner_out, own}) fs::create_directories(f);
  }
  ~Class() { fs::remove_all(root); }
};

}  // namespace

TEST_CASE("the sandbox hides the folders around, binds back the working folder, then its own folder") {
  Class c;
  std::vector<std::string> args;
  try {
    args = bwrap_command({.work_dir = c.me.string(), .own_dir = c.own.string(),
                          .hidden = {c.inner_out.string(), c.me.string(), "/usr", "/no/such/folder"}});
  } catch (const std::runtime_error& e) {
    WARN(e.what() << ": nothing to test");  // bwrap is not installed: scripts/ensure-deps.sh bubblewrap
    return;
  }
  const std::string subs = (c.root / "subs").string(), me = c.me.string(), own = c.own.string();
  CHECK(at(args, {"--ro-bind", "/", "/"}) == 1);                  // the system first
  CHECK(at(args, {"--unshare-pid"}) > 0);
  CHECK(at(args, {"--cap-drop", "ALL"}) > 0);                     // root's bwrap keeps them all otherwise
  CHECK(at(args, {"--unshare-net"}) == -1);                       // loopback is how the grader talks to it
  CHECK(at(args, {"--tmpfs", subs}) < at(args, {"--ro-bind", me, me}));  // the other submissions, hidden
  CHECK(at(args, {"--ro-bind", me, me}) < at(args, {"--tmpfs", c.inner_out.string()}));  // a report folder in it
  CHECK(at(args, {"--tmpfs", c.inner_out.string()}) < at(args, {"--bind", own, own}));
  CHECK(at(args, {"--bind", own, own}) < at(args, {"--remount-ro", subs}));
  CHECK(at(args, {"--tmpfs", me}) == -1);                         // its own folder is never hidden
  CHECK(at(args, {"--tmpfs", "/usr"}) == -1);                     // nor a folder of the system
  CHECK(at(args, {"--tmpfs", "/no/such/folder"}) == -1);          // nor one that is not there
  CHECK(at(args, {"--size", std::to_string(512 << 20), "--tmpfs", "/tmp"}) > 0);  // memory, bounded
  CHECK(at(args, {"--remount-ro", "/dev"}) > at(args, {"--ro-bind", "/dev/null", "/dev/tty"}));
  CHECK(at(args, {"--chdir", me, "--"}) == static_cast<long>(args.size()) - 3);
}

TEST_CASE("the sandbox's own /tmp stays one writable folder when the temporary folder is in /tmp") {
  std::string own = "/tmp/grader-test-XXXXXX";
  REQUIRE(::mkdtemp(own.data()));
  std::vector<std::string> args;
  try {
    args = bwrap_command({.work_dir = fs::current_path().string(), .own_dir = own, .hidden = {}});
  } catch (const std::runtime_error& e) {
    WARN(e.what() << ": nothing to test");
  }
  fs::remove_all(own);
  if (args.empty()) return;
  CHECK(std::count(args.begin(), args.end(), "/tmp") == 1);  // --tmpfs /tmp once, never --remount-ro /tmp
  CHECK(at(args, {"--bind", own, own}) > 0);
}

TEST_CASE("the sandbox needs --server, refuses a PostgreSQL server, and --sandbox-hide needs --sandbox") {
  auto error = [](std::vector<std::string> args) {
    auto parsed = grader::parse_grader_options(args);
    return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
  };
  CHECK(error({"--sandbox", "--server", "./s --db {db}"}).empty());
  CHECK(error({"--sandbox", "--url", "http://127.0.0.1:1", "--admin-token", "t"}) ==
        "--sandbox needs --server (a server the grader starts)");
  CHECK(error({"--sandbox", "--server", "./s --db 'postgresql:///{db_name}'"}).starts_with("--sandbox is for servers"));
  CHECK(error({"--sandbox-hide", "x", "--server", "./s"}) == "--sandbox-hide needs --sandbox");
}
