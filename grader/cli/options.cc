// options.cc: see options.h.
#include "grader/cli/options.h"

#include "grader/checks/check.h"
#include "grader/wire/sandbox.h"

namespace grader {

namespace {

// The flags `grader --stage N ...` and `grader matrix` share.
const Flag kSeed{"--seed", "S", "repeat a run's inputs and fault schedule (the seed is printed at the start)"};
const Flag kHtml{"--html", "FILE",
                 "write the report as one self-contained HTML page: each failed check with a timeline\n"
                 "of its requests, the ones a finding is about marked"};

const CommandSpec kGradeSpec{
    .name = "grader",
    .summary = "grades an Idempotency Key Lab server through its HTTP contract (docs/teach/grader.md \"The grader\").",
    .usage = {"--stage N --server \"<command>\" [options]",
              "--stage N --url http://127.0.0.1:PORT[,http://127.0.0.1:PORT2...] --admin-token T [options]",
              "--list"},
    .description = R"(The server command may use {port}, {db}, {db_name} and {admin_token}; the grader fills them with a free
port, a fresh database file in a temporary folder, a name for that database and a random token, runs the
command with /bin/sh -c in its own process group, waits for GET /healthz, restarts it (same database)
after the crashes it causes, and stops it at the end. Any language works, e.g.
  grader --stage 2 --server "python3 server.py --port {port} --db {db} --admin-token {admin_token} --lab-controls"
{db_name} names a database on a database server: lab_ and 16 hex digits (a valid PostgreSQL name), the
same across restarts of one server, new for each fresh one. Quote a URI for that shell (& would end the
command there), e.g. --db 'postgresql:///{db_name}?host=DIR&user=lab'. A command with {db_name} and
without {db} has no database file, so nothing reads one (grader soak's R7 is then not checked).
The server must honour --lab-controls (Lab-Delay-Ms, Lab-Crash, Lab-Fail, POST /admin/clock).
)",
    .flags = {{"--stage", "N", "grade stages 1..N (default 6); the contract (stage 0) always runs first"},
              {"--only", "N", "grade stage N only"},
              {"--check", "NAME", "run one check (names: grader --list), e.g. stage4.crash-before-money"},
              kSeed,
              {"--histories", "K",
               "random histories each stageN.conformance runs, each on a fresh server (default " +
                   std::to_string(kConformanceHistories) + ";\nmore finds rarer mistakes, fewer is quicker)"},
              {"--server", "CMD", "start the server under test (see above)"},
              {"--url", "URL[,URL...]",
               "grade a running server; checks that crash it are skipped. Several URLs are instances\n"
               "of one server on one shared database (one --admin-token): each request goes to the next"},
              {"--admin-token", "T", "the running server's admin token (with --url)"},
              {"--lease", "S", "the server's --lease (default: read from the command, else 30)"},
              {"--key-ttl", "S", "the server's --key-ttl (default: read from the command, else 86400)"},
              {"--server-memory-mib", "M",
               "end the server if its processes hold more than M MiB (default 2048; every\n"
               "bound a server runs under: docs/teach/grader-for-courses.md \"Untrusted servers\")"},
              {"--sandbox", "",
               "run the server in bubblewrap (scripts/ensure-deps.sh bubblewrap installs bwrap):\n"
               "it sees the system read-only, its own /tmp, processes and temporary folder ({db}),\n"
               "and this folder read-only; not the folder around this one (other submissions), the\n"
               "home folder, nor the folders of --json, --junit, --html and --history. The network\n"
               "stays shared (the grader uses loopback); not with {db_name} (PostgreSQL's socket is\n"
               "in /tmp). What it protects and what not: docs/teach/grader-for-courses.md \"Untrusted servers\""},
              {"--sandbox-hide", "DIR", "with --sandbox: hide DIR from the server too (grader class hides its --out)"},
              {"--json", "FILE", "write Gradescope's results.json"},
              {"--junit", "FILE", "write JUnit XML"},
              {"--history", "FILE", "keep the history of every attempt (JSON Lines; format in docs/teach/grader.md \"The grader\")"},
              kHtml,
              {"--all-findings", "",
               "show every finding of a failed check (default: the first 3, and how many more);\n"
               "--json and --junit always carry them all"},
              {"--verbose", "", "print the history while it is recorded (on stderr)"},
              {"--list", "", "list the checks"}},
    .closing = R"(Exit status: 0 when every selected check passed, 1 when one failed, 2 for a usage error.
Colour only on a terminal; NO_COLOR turns it off.)"};

const CommandSpec kMatrixSpec{
    .name = "grader matrix",
    .summary = "the grader checks itself against every reference stage and wrong turn (docs/teach/grader.md \"The grader\").",
    .usage = {"--bin-dir <build>/stages [--seed S] [--jobs N] [--histories K] [--html FILE]"},
    .description = R"(Every stage server and wrong turn built in DIR is graded with every check. The result must be a
staircase: stage k passes every check of stages 0..k and fails at least one check of each later stage,
and each wrong turn fails the check named for its mistake.)",
    .flags = {{"--bin-dir", "DIR", "where the stage binaries are (required)"},
              kSeed,
              {"--jobs", "N", "grade N servers at once (default 6; grading is mostly waiting)"},
              {"--histories", "K",
               "random histories each stageN.conformance runs (default " +
                   std::to_string(kConformanceHistoriesWhenMany) + "; 0: none)"},
              kHtml},
    .closing = "Exit status: 0 when the staircase holds, 1 when it is broken, 2 for a usage error."};

}  // namespace

CommandSpec grade_spec() { return kGradeSpec; }
CommandSpec matrix_spec() { return kMatrixSpec; }

std::variant<GraderOptions, std::string> parse_grader_options(const std::vector<std::string>& args) {
  const bool matrix = !args.empty() && args[0] == "matrix";
  const CommandSpec& spec = matrix ? kMatrixSpec : kGradeSpec;
  auto read = read_command_line(spec, matrix ? std::vector<std::string>(args.begin() + 1, args.end()) : args);
  if (auto* error = std::get_if<std::string>(&read)) return *error;
  auto& cl = std::get<CommandLine>(read);
  GraderOptions o;
  o.mode = cl.help() ? GraderOptions::Mode::Help
           : matrix  ? GraderOptions::Mode::Matrix
           : cl.has("--list") ? GraderOptions::Mode::List
                              : GraderOptions::Mode::Grade;
  if (o.mode == GraderOptions::Mode::Help) return o;
  cl.number("--stage", 1, 6, o.stage);
  cl.number("--only", 1, 6, o.only);
  cl.number<std::uint64_t>("--seed", 0, UINT64_MAX, o.seed);
  cl.number("--jobs", 1, 64, o.jobs);
  cl.number("--histories", 0, 10'000, o.histories);
  cl.number<std::int64_t>("--lease", 1, 365LL * 24 * 3600, o.lease_seconds);
  cl.number<std::int64_t>("--key-ttl", 1, 365LL * 24 * 3600, o.key_ttl_seconds);
  cl.number<std::int64_t>("--server-memory-mib", 16, 1 << 20, o.server_memory_mib);
  if (cl.has("--check")) o.check = cl.text("--check");
  o.server = cl.text("--server");
  o.url = cl.text("--url");
  o.admin_token = cl.text("--admin-token");
  o.json_path = cl.text("--json");
  o.junit_path = cl.text("--junit");
  o.history_path = cl.text("--history");
  o.html_path = cl.text("--html");
  o.bin_dir = cl.text("--bin-dir");
  o.verbose = cl.has("--verbose");
  o.all_findings = cl.has("--all-findings");
  o.sandbox = cl.has("--sandbox");
  o.sandbox_hide = cl.text("--sandbox-hide");
  if (o.mode == GraderOptions::Mode::Grade) {
    if (o.server.empty() == o.url.empty()) cl.fail("give exactly one of --server and --url");
    if (!o.url.empty() && o.admin_token.empty()) cl.fail("--url needs --admin-token");
    if (o.sandbox && o.server.empty()) cl.fail("--sandbox needs --server (a server the grader starts)");
    if (const std::string refusal = sandbox_refuses(o.server); o.sandbox && !refusal.empty()) cl.fail(refusal);
    if (!o.sandbox_hide.empty() && !o.sandbox) cl.fail("--sandbox-hide needs --sandbox");
  }
  if (o.mode == GraderOptions::Mode::Matrix && o.bin_dir.empty()) cl.fail("--bin-dir is required");
  if (cl.failed()) return cl.error();
  return o;
}

}  // namespace grader
