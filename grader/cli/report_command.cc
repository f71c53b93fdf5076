// report_command.cc: `grader report`, see report_command.h. The order: the matrix (grader/cli/matrix.h), then
// the day replayed on every stage (grader/cli/day.h), then the page.
#include "grader/cli/report_command.h"

#include <chrono>
#include <cstdio>
#include <iostream>

#include "grader/base/parallel.h"
#include "grader/base/rng.h"
#include "grader/base/stage_binaries.h"
#include "grader/checks/check.h"
#include "grader/cli/command_line.h"
#include "grader/cli/day.h"
#include "grader/cli/grade.h"
#include "grader/cli/matrix.h"
#include "grader/cli/options.h"
#include "grader/day/day_generate.h"
#include "grader/report/report.h"
#include "grader/report/report_html.h"

namespace grader {
namespace {

// The day generated when --day is not given: big enough that every story of the day happens on it (each
// stage's kind of damage shows), small enough that eleven servers replay it in about half a minute (two at
// a time, 4.5 s each on two cores).
constexpr std::int64_t kDefaultDayIntents = 1000;

const CommandSpec kReportSpec{
    .name = "grader report",
    .summary = "the grader matrix and the day of requests on every stage, as one HTML page.",
    .usage = {"--html FILE [--bin-dir DIR] [--seed S] [--day LOG] [--intents N] [--jobs N]"},
    .description = R"(It grades every reference stage and wrong turn built in DIR with every check (as `grader matrix` does),
then replays a day on each of them (as `grader day replay LOG --stage all` does), and writes FILE: the
check matrix, each failed check with a timeline of its requests (the ones a finding is about marked, a
link to the first), the day's damage per server as a table and a bar chart. The page is self-contained
(no script, no external file): open it from disk, attach it, keep it as a CI artifact.)",
    .flags = {{"--html", "FILE", "the page to write (required)"},
              {"--bin-dir", "DIR", "where the stage binaries are (default: beside the grader, <build>/stages)"},
              {"--seed", "S", "the matrix's seed and the generated day's (default: a fresh one, printed)"},
              {"--day", "LOG", "the day to replay (default: a generated day of --intents intents)"},
              {"--intents", "N", "the generated day's size (default 1000)"},
              {"--jobs", "N", "servers graded at once (default 6)"}},
    .closing = R"(It takes as long as `grader matrix` (about 20 s on two cores) and half a minute more for the default day:
under a minute in all. Exit status: 0 when the page was written, the staircase holds and every replay ran;
1 otherwise; 2 for a usage error.)"};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int run_report(const std::vector<std::string>& args) {
  auto line = parse_command_line(kReportSpec, args);
  if (auto* status = std::get_if<int>(&line)) return *status;
  auto& cl = std::get<CommandLine>(line);
  const std::string html = cl.text("--html"), day_log = cl.text("--day");
  std::string bin_dir = cl.text("--bin-dir");
  std::optional<std::uint64_t> seed;
  std::int64_t intents = kDefaultDayIntents;
  int jobs = kDefaultJobs;
  cl.number<std::uint64_t>("--seed", 0, UINT64_MAX, seed);
  cl.number<std::int64_t>("--intents", 1, 1'000'000, intents);
  cl.number("--jobs", 1, 64, jobs);
  if (html.empty()) cl.fail("--html FILE is required");
  if (cl.failed()) return usage_error(kReportSpec, cl.error());
  if (bin_dir.empty()) bin_dir = default_bin_dir();
  const std::uint64_t run_seed = seed.value_or(fresh_seed());

  // The day first read or made, so a bad LOG stops the run before the matrix's minutes.
  DayLog day;
  std::string day_name;
  try {
    day = day_log.empty() ? generate_day({.seed = run_seed, .intents = intents}) : read_day_log(day_log);
  } catch (const DayLogError& e) {
    std::cerr << "grader report: " << e.what() << "\n";
    return 2;
  }
  day_name = day_log.empty() ? "a generated day (grader day generate --seed " + std::to_string(run_seed) +
                                   " --intents " + std::to_string(intents) + ")"
                             : day_log;

  kill_servers_on_signal();
  const auto started = std::chrono::steady_clock::now();
  std::cout << "grader report: seed " << run_seed << ", binaries from " << bin_dir << "\nthe matrix, " << jobs
            << " servers at a time:\n"
            << std::flush;
  auto checks = all_checks();
  auto selected = select_checks(checks, Selection{6, std::nullopt, std::nullopt});
  MatrixRun matrix = grade_matrix(checks, selected, bin_dir, run_seed, jobs);
  std::printf("%s in %.1fs\n\nthe day, %s:\n", matrix.problems.empty() ? "staircase holds" : "staircase broken",
              matrix.seconds, day_name.c_str());
  std::fflush(stdout);
  const auto day_started = std::chrono::steady_clock::now();
  DayReport day_report = replay_on_every_stage(day, day_name, bin_dir);
  const double day_seconds = seconds_since(day_started);

  char timing[160];
  std::snprintf(timing, sizeof timing, "the matrix took %.1f s, the day %.1f s, %.1f s in all", matrix.seconds,
                day_seconds, seconds_since(started));
  bool replays_ok = true;
  for (const auto& row : day_report.rows) replays_ok = replays_ok && row.error.empty();
  HtmlReport report{
      .title = "grader report",
      .about = {"seed " + std::to_string(run_seed) + ", binaries from " + bin_dir, timing,
                "repeat: " + shell_quote(grader_path()) + " report --html " + shell_quote(html) + " --bin-dir " +
                    shell_quote(bin_dir) + " --seed " + std::to_string(run_seed) +
                    (day_log.empty() ? " --intents " + std::to_string(intents) : " --day " + shell_quote(day_log))},
      .checks = selected,
      .servers = std::move(matrix.servers),
      .staircase = matrix.problems,
      .day = std::move(day_report),
      .book = local_book_url()};
  const bool written = write_report_html(html, report);
  for (const auto& p : matrix.problems) std::cout << "STAIRCASE BROKEN: " << p << "\n";
  std::cout << "\ngrader report: " << timing << (written ? "; the page: " + html : "") << "\n";
  return written && matrix.problems.empty() && replays_ok ? 0 : 1;
}

}  // namespace grader
