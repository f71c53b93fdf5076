// soak.cc: see soak.h.
#include "grader/cli/soak.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <variant>

#include "grader/base/rng.h"
#include "grader/base/stage_binaries.h"
#include "grader/cli/command_line.h"
#include "grader/cli/grade.h"
#include "grader/cli/options.h"
#include "grader/cli/repeat_line.h"
#include "grader/report/report.h"
#include "grader/soak/soak_round.h"
#include "grader/wire/lab_api.h"

namespace grader {
namespace {

constexpr int kDefaultRounds = 200;
// The lease the reference binaries are started with (seconds). Short, so that CheckRun::settle also waits it
// out in real time when a server's leases ignore the lab clock; the soak moves the lab clock past it anyway.
constexpr int kSoakLeaseSeconds = 2;
// Without --every, a progress line every tenth of the rounds.
constexpr int kProgressLines = 10;

const CommandSpec kSoakSpec{
    .name = "grader soak",
    .summary = "crash-and-retry rounds on one server and one database file, each checked in full\n"
               "(docs/reference/plumbing.md \"Plumbing\", Reliability: soak).",
    .usage = {"[--rounds N] [--seed S] [--stage N|NAME] [--bin-dir DIR] [options]",
              "[--rounds N] [--seed S] --server \"<command with {port} {db} {admin_token}>\" [options]"},
    .description = R"(Each round makes a few clients and accounts and sends transfers and payouts at once, each with its own
Idempotency-Key. Some first attempts carry Lab-Crash (before-money, after-money), Lab-Fail: busy or
Lab-Delay-Ms, some are sent twice at once, and in some rounds the server's process group is killed
(SIGKILL) while requests are in flight. The server is started again on the same database file each time
it dies, and every request whose outcome is unknown (no response, 409 in progress, 503) is retried with
the same key and body until it has a final answer; the lease runs out on the lab clock (POST /admin/clock),
not by sleeping. Then every key is sent once more and the round is checked:
  R1 every answer of a key, and its answer now, is its first answer byte for byte
  R2 one ledger entry per key answered 2xx, none per key refused, each what was asked; balances follow
     the ledger (the grader's audit, docs/teach/grader.md "The grader")
  R3 balances equal a model built from the requests answered 2xx alone
  R4 money is conserved: the accounts hold their opening money less the payouts answered 2xx
  R5 no balance is negative
  R6 overdrafts are answered 402 and another client's account 404
  R7 the database file passes PRAGMA integrity_check (read-only, with the sqlite3 program), and no key is
     in_progress past its lease
The first round that breaks one stops the soak: its findings, the keys they name and the command that
sends that round's requests again.)",
    .flags = {{"--rounds", "N", "rounds to run (default 200)"},
              {"--seed", "S", "the rounds' inputs and fault schedule (default: a fresh seed, printed)"},
              {"--round", "N",
               "run round N of the seed alone, on a fresh server: the same requests and faults, without\n"
               "what earlier rounds left in the database"},
              {"--stage", "N|NAME",
               "the reference binary to start (default 6; a wrong turn by name, as in `grader matrix`),\n"
               "with --lease 2 and --lab-controls"},
              {"--bin-dir", "DIR", "where the binaries are (default: <the grader's folder>/../stages)"},
              {"--server", "CMD", "start this command instead (it must honour --lab-controls); its --lease is read from it"},
              {"--every", "N",
               "a progress line every N rounds (default: every tenth of the rounds); on a terminal the\n"
               "line is updated after every round instead"},
              {"--history", "FILE", "every attempt of every round, as JSON Lines (docs/teach/grader.md \"The grader\", the history format)"},
              {"--all-findings", "", "show every finding of the failed round (default: the first 3)"}},
    .closing = R"(Exit status: 0 when every round passed, 1 when one broke an invariant (or the server did not start), 2 for
a usage error. Colour never: the figures are for reading and copying.)"};

struct SoakOptions {
  int rounds = kDefaultRounds;
  std::optional<std::uint64_t> seed;
  std::optional<int> round;
  std::string stage;  // "" : stage 6
  std::string bin_dir;
  std::string server;
  std::optional<int> every;
  std::string history_path;
  bool all_findings = false;
};

// The options, or the exit status of a usage error or of --help.
std::variant<SoakOptions, int> parse_soak_options(const std::vector<std::string>& args) {
  auto line = parse_command_line(kSoakSpec, args);
  if (auto* status = std::get_if<int>(&line)) return *status;
  auto& cl = std::get<CommandLine>(line);
  SoakOptions o;
  cl.number("--rounds", 1, 10'000'000, o.rounds);
  cl.number("--round", 1, 10'000'000, o.round);
  cl.number("--every", 1, 10'000'000, o.every);
  cl.number<std::uint64_t>("--seed", 0, UINT64_MAX, o.seed);
  o.stage = cl.text("--stage");
  o.bin_dir = cl.text("--bin-dir");
  o.server = cl.text("--server");
  o.history_path = cl.text("--history");
  o.all_findings = cl.has("--all-findings");
  if (!o.server.empty() && (cl.has("--stage") || cl.has("--bin-dir")))
    cl.fail("--server starts its own command: give it without --stage and --bin-dir");
  if (cl.failed()) return usage_error(kSoakSpec, cl.error());
  return o;
}

// The command that repeats one round of this soak alone.
std::string repeat_round_command(const SoakOptions& o, std::uint64_t seed, int round) {
  std::string cmd =
      repeat_prefix() + " soak --seed " + std::to_string(seed) + " --round " + std::to_string(round);
  if (!o.server.empty()) return cmd + " --server " + shell_quote(o.server);
  if (!o.stage.empty()) cmd += " --stage " + shell_quote(o.stage);
  return o.bin_dir.empty() ? cmd : cmd + " --bin-dir " + shell_quote(o.bin_dir);
}

std::string progress_line(const SoakFigures& f, int of_rounds, double seconds) {
  char line[256];
  std::snprintf(line, sizeof line,
                "  round %lld/%d  %lld requests  %lld retries  %lld Lab-Crash  %lld SIGKILL  %lld restarts  %.1fs",
                static_cast<long long>(f.rounds), of_rounds, static_cast<long long>(f.requests),
                static_cast<long long>(f.retries),
                static_cast<long long>(f.crashes_before_money + f.crashes_after_money),
                static_cast<long long>(f.sigkills), static_cast<long long>(f.restarts), seconds);
  return line;
}

void print_figures(const SoakFigures& f, double seconds, std::uint64_t seed, const std::string& database_caveat) {
  const auto n = [](std::int64_t v) { return static_cast<long long>(v); };
  std::printf("soak figures (seed %llu): rounds %lld, anomalies %lld, %.1f s, %.2f rounds/s\n",
              static_cast<unsigned long long>(seed), n(f.rounds), n(f.anomalies), seconds,
              seconds > 0 ? static_cast<double>(f.rounds) / seconds : 0.0);
  std::printf("  requests %lld, retries %lld\n", n(f.requests), n(f.retries));
  std::printf("  crashes: Lab-Crash before-money %lld, Lab-Crash after-money %lld, SIGKILL %lld; restarts %lld\n",
              n(f.crashes_before_money), n(f.crashes_after_money), n(f.sigkills), n(f.restarts));
  std::printf("  database file (R7) read after %lld of %lld rounds%s%s\n", n(f.database_checks), n(f.rounds),
              database_caveat.empty() ? "" : ": ", database_caveat.c_str());
}

void print_failed_round(const RoundResult& r, const SoakOptions& o, std::uint64_t seed, int round) {
  CheckOutcome outcome{.check = &r.check,
                       .verdict = Verdict::Fail,
                       .findings = r.findings,
                       .note = r.note,
                       .before = r.before,
                       .after = r.after};
  std::printf("FAIL  round %d of seed %llu (%s): %zu finding%s\n", round, static_cast<unsigned long long>(seed),
              r.plan.c_str(), r.findings.size(), r.findings.size() == 1 ? "" : "s");
  std::printf("%s", describe_findings(outcome, o.all_findings).c_str());
  if (!r.keys_named.empty()) std::printf("keys:\n%s", r.keys_named.c_str());
  std::printf("repeat: %s\n", repeat_round_command(o, seed, round).c_str());
}

}  // namespace

int run_soak(const std::vector<std::string>& args) {
  auto parsed = parse_soak_options(args);
  if (auto* status = std::get_if<int>(&parsed)) return *status;
  const SoakOptions& o = std::get<SoakOptions>(parsed);

  std::string command = o.server;
  if (command.empty()) {
    const std::string stage = o.stage.empty() ? "6" : o.stage;
    auto binary = find_stage_binary(stage, o.bin_dir);
    if (!binary)
      return usage_error(kSoakSpec, "no binary for --stage " + stage + " in " +
                         (o.bin_dir.empty() ? default_bin_dir() : o.bin_dir) +
                         " (build it, or give --bin-dir or --server)");
    command = stage_command(*binary, "--lease " + std::to_string(kSoakLeaseSeconds));
  }
  const std::uint64_t seed = o.seed.value_or(fresh_seed());
  const int first = o.round.value_or(1), last = o.round.value_or(o.rounds);
  const int every = o.every.value_or(std::max(1, o.rounds / kProgressLines));
  const bool terminal = isatty(STDOUT_FILENO);

  std::ofstream history_file;
  if (!o.history_path.empty()) history_file.open(o.history_path, std::ios::binary);
  std::printf("grader soak: %s, seed %llu (repeat with --seed %llu)\n",
              o.round ? ("round " + std::to_string(first)).c_str() : (std::to_string(o.rounds) + " rounds").c_str(),
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  kill_servers_on_signal();
  std::unique_ptr<Target> target;
  try {
    target = Target::launch(command, facts_from_command(command));
  } catch (const StartError& e) {
    std::printf("%s", e.what());
    return 1;
  }
  std::printf("grader soak: server %s\n", target->describe().c_str());

  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  SoakFigures total;
  std::string database_caveat;
  std::int64_t ledger_end = 0;
  bool failed = false;
  for (int round = first; round <= last && !failed; ++round) {
    History history;  // one per round: a thousand rounds' requests need not stay in memory
    if (history_file.is_open()) history.stream_to(&history_file);
    try {
      RoundResult r = run_soak_round(*target, history, seed, round, ledger_end);
      total += r.figures;
      ledger_end = r.ledger_start;
      if (!r.database_caveat.empty()) database_caveat = r.database_caveat;
      if (!r.findings.empty()) {
        if (terminal) std::printf("\r\033[2K");
        print_failed_round(r, o, seed, round);
        failed = true;
        break;
      }
    } catch (const std::exception& e) {  // StartError (no restart after a crash), ApiError (no admin answer)
      if (terminal) std::printf("\r\033[2K");
      std::printf("FAIL  round %d of seed %llu: %s\n  its stderr (last lines):\n%s", round,
                  static_cast<unsigned long long>(seed), e.what(), target->stderr_tail().c_str());
      total.anomalies += 1;
      failed = true;
      break;
    }
    const int done = round - first + 1;
    if (terminal)
      std::printf("\r\033[2K%s", progress_line(total, last - first + 1, elapsed()).c_str());
    else if (done % every == 0 || round == last)
      std::printf("%s\n", progress_line(total, last - first + 1, elapsed()).c_str());
    std::fflush(stdout);
  }
  if (terminal && !failed) std::printf("\n");
  target->stop();
  print_figures(total, elapsed(), seed, database_caveat);
  if (history_file.is_open()) std::printf("grader soak: history in %s\n", o.history_path.c_str());
  return failed ? 1 : 0;
}

}  // namespace grader
