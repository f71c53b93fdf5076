// main.cc: `playground`, the lab in a browser: guided tours of the `grader demo` stories and free play, on
// the real stage servers, with their key tables live. docs/teach/the-playground.md "The playground".
//
//   session.cc        one real stage server and what is told to it (a story or the learner's requests)
//   api.cc            the JSON API the page drives, and the page's files (web_assets.h)
//   database_view.cc  the server's key table, ledger and accounts, read from its SQLite file
//   web/              the page: index.html, playground.js, playground.css
#include <httplib.h>

#include <malloc.h>

#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "common/guarded_server.h"
#include "common/http_server.h"
#include "grader/base/stage_binaries.h"
#include "playground/api.h"

namespace {

constexpr int kDefaultPort = 8090;  // beside a stage server on its default 8080

// glibc gives threads up to 8 arenas per core, and free mode starts a thread per copy of a burst (16 at
// most): the history's events are made on those threads and live until the bound drops them, so each arena
// keeps pages that a few live events pin. Two arenas keep the session's memory bounded by its history
// (docs/teach/the-playground.md "The playground", limits: 46 MB after 2,000 sends of 16 copies, 188 MB with glibc's default);
// the playground's threads seldom allocate at the same moment.
constexpr int kMallocArenas = 2;

const char* const kUsage =
    "usage: playground [--port P] [--bin-dir DIR] [--book-dir DIR]\n"
    "Serves the playground on http://127.0.0.1:P/ (loopback only) until Ctrl-C: guided tours of the\n"
    "`grader demo` scenarios and free play, each on a real stage server and a real SQLite file, with the\n"
    "key table, the ledger and every request live.\n"
    "  --port P        TCP port, default 8090; 0 picks a free one (see the 'listening on' line)\n"
    "  --bin-dir DIR   where the stage binaries are (default: <build>/stages beside this program)\n"
    "  --book-dir DIR  the book `make book` wrote, served at /book/ (default: <build>/book beside this program)\n"
    "Open the printed URL in a browser. docs/teach/the-playground.md \"The playground\".\n";

}  // namespace

int main(int argc, char** argv) {
  // Before any thread: the stop signals go to serve_until_signalled's thread (common/http_server.h).
  lab::block_stop_signals();
  ::mallopt(M_ARENA_MAX, kMallocArenas);
  int port = kDefaultPort;
  std::string bin_dir;
  std::filesystem::path book_dir = grader::default_book_dir();
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--port" && i + 1 < args.size()) {
      const std::string& text = args[++i];
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
      if (error != std::errc() || end != text.data() + text.size() || port < 0 || port > 65535) {
        std::fprintf(stderr, "playground: --port takes 0 to 65535, not '%s'\n", text.c_str());
        return 2;
      }
    } else if (a == "--bin-dir" && i + 1 < args.size()) {
      bin_dir = args[++i];
    } else if (a == "--book-dir" && i + 1 < args.size()) {
      book_dir = args[++i];
    } else {
      std::fprintf(stderr, "playground: unexpected argument '%s'\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  // A stop signal (common/http_server.h:stop_signals: SIGINT, SIGTERM, SIGHUP, SIGQUIT...) ends
  // serve_until_signalled; the Playground's destructor then ends the session, whose Scene stops the stage
  // server it started (its own process group, which a Ctrl-C would not reach). Any other end, SIGKILL
  // included, ends the stage server too: its keeper reads the playground's end (grader/wire/process_keeper.h).
  playground::Playground playground(bin_dir, book_dir);
  lab::GuardedServer server;
  lab::configure_server(server, /*log_requests=*/false);
  playground::install_routes(server, playground);
  std::printf("playground: open the URL below in a browser (Ctrl-C stops it and its servers)\n");
  return lab::serve_until_signalled(server, "127.0.0.1", port);
}
