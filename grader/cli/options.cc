// options.cc: see options.h.
#include "grader/cli/options.h"

namespace grader {

std::string usage() {
  return R"(grader: grades an Idempotency Key Lab server through its HTTP contract (LAB.md "The grader").

Usage:
  grader --stage N --server "<command>" [options]
  grader --stage N --url http://127.0.0.1:PORT[,http://127.0.0.1:PORT2...] --admin-token T [options]
  grader matrix --bin-dir <build>/stages [--seed S] [--jobs N] [--html FILE]
  grader report --html FILE [--bin-dir DIR] [--seed S] [--day LOG]   the matrix and the day on every
                                          stage, as one page (grader report --help)
  grader day generate|replay|show ...     the day of requests (grader day --help)
  grader demo [NAME]                      narrated failure scenarios (grader demo --help)
  grader mutants --bin-dir DIR [--seeds N]   the grader against stage 6's mutants (grader mutants --help)
  grader soak [--rounds N] [--seed S]     crash-and-retry rounds on stage 6, each checked (grader soak --help)
  grader load [--bin-dir DIR] [--seconds-per-phase S]   bounded loopback load on stage 6 (grader load --help)
  grader --list

The server command may use {port}, {db}, {db_name} and {admin_token}; the grader fills them with a free
port, a fresh database file in a temporary folder, a name for that database and a random token, runs the
command with /bin/sh -c in its own process group, waits for GET /healthz, restarts it (same database)
after the crashes it causes, and stops it at the end. Any language works, e.g.
  grader --stage 2 --server "python3 server.py --port {port} --db {db} --admin-token {admin_token} --lab-controls"
{db_name} names a database on a database server: lab_ and 16 hex digits (a valid PostgreSQL name), the
same across restarts of one server, new for each fresh one. Quote a URI for that shell (& would end the
command there), e.g. --db 'postgresql:///{db_name}?host=DIR&user=lab'. A command with {db_name} and
without {db} has no database file, so nothing reads one (grader soak's R7 is then not checked).
The server must honour --lab-controls (Lab-Delay-Ms, Lab-Crash, Lab-Fail, POST /admin/clock).

Options:
  --stage N          grade stages 1..N (default 6); the contract (stage 0) always runs first
  --only N           grade stage N only
  --check NAME       run one check (names: grader --list), e.g. stage4.crash-before-money
  --seed S           repeat a run's inputs and fault schedule (the seed is printed at the start)
  --server CMD       start the server under test (see above)
  --url URL[,URL...] grade a running server; checks that crash it are skipped. Several URLs are instances
                     of one server on one shared database (one --admin-token): each request goes to the next
  --admin-token T    the running server's admin token (with --url)
  --lease S          the server's --lease (default: read from the command, else 30)
  --key-ttl S        the server's --key-ttl (default: read from the command, else 86400)
  --json FILE        write Gradescope's results.json
  --junit FILE       write JUnit XML
  --history FILE     keep the history of every attempt (JSON Lines; format in LAB.md "The grader")
  --html FILE        write the report as one self-contained HTML page: each failed check with a timeline
                     of its requests, the ones a finding is about marked (also for grader matrix)
  --all-findings     show every finding of a failed check (default: the first 3, and how many more);
                     --json and --junit always carry them all
  --verbose          print the history while it is recorded (on stderr)
  --jobs N           matrix: grade N servers at once (default 6; grading is mostly waiting)
  --list             list the checks
  --help             this text

Exit status: 0 when every selected check passed, 1 when one failed, 2 for a usage error.
Colour only on a terminal; NO_COLOR turns it off.
)";
}

std::optional<std::string> parse_option_pairs(
    const std::vector<std::string>& args, bool* help,
    const std::function<std::optional<std::string>(const std::string& option, const std::string& value)>& take) {
  *help = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") return *help = true, std::nullopt;
    if (i + 1 == args.size()) return args[i] + " needs a value (or is unknown)";
    if (auto error = take(args[i], args[i + 1])) return error;
    ++i;
  }
  return std::nullopt;
}

std::variant<GraderOptions, std::string> parse_grader_options(const std::vector<std::string>& args) {
  GraderOptions o;
  std::size_t i = 0;
  if (!args.empty() && args[0] == "matrix") {
    o.mode = GraderOptions::Mode::Matrix;
    i = 1;
  }
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    auto need = [&](auto parsed, const char* what) -> std::optional<std::string> {
      if (!parsed) return arg + " needs " + what;
      return std::nullopt;
    };
    std::optional<std::string> error;
    if (arg == "--help" || arg == "-h") {
      o.mode = GraderOptions::Mode::Help;
    } else if (arg == "--list") {
      o.mode = GraderOptions::Mode::List;
    } else if (arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "--all-findings") {
      o.all_findings = true;
    } else if (arg == "--stage" || arg == "--only") {
      auto v = value();
      auto n = v ? parse_number<int>(*v, 1, 6) : std::nullopt;
      if (!(error = need(n, "a stage from 1 to 6"))) (arg == "--stage" ? o.stage : o.only.emplace()) = *n;
    } else if (arg == "--seed") {
      auto v = value();
      auto n = v ? parse_number<std::uint64_t>(*v, 0, UINT64_MAX) : std::nullopt;
      if (!(error = need(n, "a whole number"))) o.seed = *n;
    } else if (arg == "--jobs") {
      auto v = value();
      auto n = v ? parse_number<int>(*v, 1, 64) : std::nullopt;
      if (!(error = need(n, "a number from 1 to 64"))) o.jobs = *n;
    } else if (arg == "--lease" || arg == "--key-ttl") {
      auto v = value();
      auto n = v ? parse_number<std::int64_t>(*v, 1, 365LL * 24 * 3600) : std::nullopt;
      if (!(error = need(n, "a number of seconds"))) (arg == "--lease" ? o.lease_seconds : o.key_ttl_seconds) = *n;
    } else if (arg == "--check" || arg == "--server" || arg == "--url" || arg == "--admin-token" || arg == "--json" ||
               arg == "--junit" || arg == "--history" || arg == "--html" || arg == "--bin-dir") {
      auto v = value();
      if (!(error = need(v, "a value"))) {
        if (arg == "--check") o.check = *v;
        if (arg == "--server") o.server = *v;
        if (arg == "--url") o.url = *v;
        if (arg == "--admin-token") o.admin_token = *v;
        if (arg == "--json") o.json_path = *v;
        if (arg == "--junit") o.junit_path = *v;
        if (arg == "--history") o.history_path = *v;
        if (arg == "--html") o.html_path = *v;
        if (arg == "--bin-dir") o.bin_dir = *v;
      }
    } else {
      error = "unknown option '" + arg + "'";
    }
    if (error) return *error;
  }
  if (o.mode == GraderOptions::Mode::Grade) {
    if (o.server.empty() == o.url.empty()) return std::string("give exactly one of --server and --url");
    if (!o.url.empty() && o.admin_token.empty()) return std::string("--url needs --admin-token");
  }
  if (o.mode == GraderOptions::Mode::Matrix && o.bin_dir.empty()) return std::string("matrix needs --bin-dir");
  return o;
}

}  // namespace grader
