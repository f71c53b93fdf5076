// class_command.cc: see class_command.h. The order: the line, the class, each learner (skipped or graded,
// with a line of progress), the summary.
#include "grader/cli/class_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include "grader/base/parallel.h"
#include "grader/checks/check.h"
#include "grader/cli/class_learner.h"
#include "grader/cli/class_resume.h"
#include "grader/cli/class_roster.h"
#include "grader/cli/command_line.h"
#include "grader/report/class_summary.h"
#include "grader/report/report.h"
#include "grader/wire/sandbox.h"

namespace grader {
namespace {

namespace fs = std::filesystem;

// Every learner is graded on the same seed, so two learners' verdicts come from the same inputs and fault
// schedule, and a second run can tell what it already graded (class_resume.h).
constexpr std::uint64_t kDefaultSeed = 1;
constexpr const char* kDefaultOut = "class-report";
// A learner's grading that takes longer than this is stopped; a stage 6 grading takes about a minute.
constexpr std::int64_t kDefaultLearnerSeconds = 20 * 60;
constexpr const char* kSummaryCsv = "summary.csv";
constexpr const char* kSummaryHtml = "summary.html";

const CommandSpec kClassSpec{
    .name = "grader class",
    .summary = "grades a whole class of submissions, a few at a time, and writes a summary of the class\n"
               "(docs/teach/grader-for-courses.md \"Grading a class\").",
    .usage = {"--submissions DIR [--stage N] [--seed S] [--jobs N] [--out DIR] [--fresh]",
              "--roster FILE [--stage N] [--seed S] [--jobs N] [--out DIR] [--fresh]"},
    .description = R"(Who is in the class:
  --submissions DIR  each subfolder of DIR is one learner, named by the folder; the first line of its
                     file lab-server.cmd that is not blank and not a # comment is the server's start
                     command (folders starting with '.' are skipped)
  --roster FILE      one learner a line: name<TAB>folder<TAB>command, the folder relative to FILE's
                     folder; blank lines and lines starting with # are skipped
A command is a grader --server template ({port}, {db}, {db_name}, {admin_token}; see grader --help) and
runs in the learner's folder, e.g. "python3 server.py --port {port} --db {db} --admin-token {admin_token}
--lab-controls". A name must be a plain file name: no '/', no control character, not starting with '.'.

Each learner is graded by a grader process of their own (this binary, as grader --stage N --server CMD
--seed S), in their folder, with a temporary folder of its own, its own process group and a time limit,
so a server that crashes, hangs or floods its output is that learner's red row and never stops the class.
Into OUT/<name>/: report.txt (the text report, cut at 1 MiB), report.html, results.json (Gradescope),
junit.xml and, last, done.json. Into OUT: summary.csv and summary.html, a row per learner: the verdict
(pass, fail, or error: no verdict), each stage passed or failed, the first failing check and its anomaly,
the time taken and links to the learner's reports.

A second run with the same --out skips every learner whose done.json has the same stage, seed and
command, and takes their row from it; --fresh grades everyone again.)",
    .flags = {{"--submissions", "DIR", "a folder with a subfolder per learner"},
              {"--roster", "FILE", "a roster file (name<TAB>folder<TAB>command a line)"},
              {"--stage", "N", "grade stages 1..N (default 6); the contract always runs first"},
              {"--seed", "S", "the seed every learner is graded on (default 1)"},
              {"--histories", "K", "the random histories of each stageN.conformance (grader --help; default 10)"},
              {"--jobs", "N", "learners graded at once (default: the number of cores)"},
              {"--out", "DIR", "where the reports and the summary go (default class-report)"},
              {"--learner-seconds", "S", "stop a learner's grading after S seconds (default 1200: 20 min)"},
              {"--fresh", "", "grade every learner again, even the ones a run before graded"},
              {"--sandbox", "",
               "each learner's server runs in bubblewrap (grader --help, --sandbox): it sees its own\n"
               "folder read-only, not the other learners' folders nor OUT (docs/teach/grader-for-courses.md \"Grading a class\")"}},
    .closing = R"(Exit status: 0 when every learner has a row and the summary was written (whatever their verdicts),
1 when a report or the summary could not be written, 2 for a usage error.
Progress: on a terminal a line that is rewritten, and a line per finished learner; elsewhere (a pipe, a
log, CI) only the line per finished learner. Colour only on a terminal; NO_COLOR turns it off.)"};

struct Settings {
  int stage = 6;
  std::uint64_t seed = kDefaultSeed;
  int jobs = 1;
  std::int64_t learner_seconds = kDefaultLearnerSeconds;
  fs::path out;
  bool fresh = false;
  bool sandbox = false;
  std::optional<int> histories;  // --histories, handed to each learner's grader
};

// A reason of several lines as one, for the progress line (the summary keeps it whole).
std::string one_line(std::string text) {
  constexpr std::size_t kShown = 160;  // characters
  for (auto at = text.find("\n"); at != std::string::npos; at = text.find("\n", at)) {
    const auto next = text.find_first_not_of(" \n", at);
    text.replace(at, (next == std::string::npos ? text.size() : next) - at, " ");
  }
  return text.size() > kShown ? text.substr(0, kShown) + "..." : text;
}

// One line per finished learner, and on a terminal the "running" line under them, rewritten in place.
class Progress {
 public:
  Progress(const std::vector<Learner>& learners, bool terminal, bool colour)
      : total_(learners.size()), terminal_(terminal), colour_(colour) {
    for (const auto& learner : learners) width_ = std::max(width_, static_cast<int>(learner.name.size()));
  }

  void started(const std::string& name) {
    std::lock_guard lock(mutex_);
    running_.insert(name);
    status_line();
  }

  void finished(const ClassRow& row) {
    std::lock_guard lock(mutex_);
    running_.erase(row.name);
    ++done_;
    if (terminal_) std::printf("\r\033[2K");
    const char* hue = !colour_ ? "" : row.verdict == "pass" ? "\033[32m" : "\033[31m";
    std::printf("  %3zu/%zu  %-*s  %s%-5s%s", done_, total_, width_, row.name.c_str(), hue, row.verdict.c_str(),
                colour_ ? "\033[0m" : "");
    if (row.resumed) std::printf("  skipped (graded before)");
    else std::printf("  %6.1fs", row.seconds);
    if (!row.first_failure.empty())
      std::printf("  %s%s", row.first_failure.c_str(), row.anomaly.empty() ? "" : (" (" + row.anomaly + ")").c_str());
    if (row.verdict == "error") std::printf("  %s", one_line(row.reason).c_str());
    std::printf("\n");
    status_line();
  }

 private:
  void status_line() {
    if (terminal_ && !running_.empty()) {
      std::string names;
      for (const auto& n : running_) names += (names.empty() ? "" : ", ") + n;
      std::printf("\r\033[2K  ....  %zu/%zu done, grading %s", done_, total_, names.substr(0, 60).c_str());
    }
    std::fflush(stdout);  // also into a pipe or a log, a line at a time
  }

  std::mutex mutex_;  // guards everything below and stdout
  const std::size_t total_;
  const bool terminal_, colour_;
  int width_ = 0;  // the longest name: the verdicts line up
  std::size_t done_ = 0;
  std::set<std::string> running_;
};

// Skipped (graded before) or graded now; the learner's folder of the output is emptied first when graded.
ClassRow run_learner(const Learner& learner, const Settings& s, Progress& progress) {
  const fs::path dir = s.out / learner.name;
  const GradedWith with{.stage = s.stage, .seed = s.seed, .histories = s.histories.value_or(kConformanceHistories)};
  if (!s.fresh)
    if (auto row = graded_before(dir.string(), with, learner.command)) {
      progress.finished(*row);
      return *row;
    }
  progress.started(learner.name);
  std::error_code error;
  fs::remove_all(dir, error);  // no report of an earlier run may stay beside this run's
  fs::create_directories(dir, error);
  ClassRow row;
  if (error) {
    row = ClassRow{.name = learner.name, .command = learner.command,
                   .reason = "cannot make its folder " + dir.string() + ": " + error.message()};
  } else {
    row = grade_learner(learner, LearnerRun{.stage = s.stage,
                                            .seed = s.seed,
                                            .time_limit = std::chrono::seconds(s.learner_seconds),
                                            .out_dir = dir.string(),
                                            .sandbox = s.sandbox,
                                            .histories = s.histories});
    if (!mark_graded(dir.string(), with, row)) row.reason += "\n(its done.json could not be written)";
  }
  progress.finished(row);
  return row;
}

}  // namespace

int run_class(const std::vector<std::string>& args) {
  auto parsed = parse_command_line(kClassSpec, args);
  if (auto* status = std::get_if<int>(&parsed)) return *status;
  auto& cl = std::get<CommandLine>(parsed);
  Settings s;
  s.jobs = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
  cl.number("--stage", 1, 6, s.stage);
  cl.number<std::uint64_t>("--seed", 0, UINT64_MAX, s.seed);
  cl.number("--histories", 1, 10'000, s.histories);
  cl.number("--jobs", 1, 64, s.jobs);  // 64: class_learner.cc's slots for the signal handler
  cl.number<std::int64_t>("--learner-seconds", 1, 24 * 3600, s.learner_seconds);
  s.out = fs::absolute(cl.text("--out", kDefaultOut));
  s.fresh = cl.has("--fresh");
  s.sandbox = cl.has("--sandbox");
  if (cl.has("--submissions") == cl.has("--roster")) cl.fail("give exactly one of --submissions and --roster");
  if (cl.failed()) return usage_error(kClassSpec, cl.error());
  // Once here, not as 30 error rows: each learner's grader would refuse to run without the sandbox.
  if (s.sandbox)
    if (const std::string why = sandbox_unavailable(); !why.empty()) return usage_error(kClassSpec, "--sandbox: " + why);
  auto read = cl.has("--roster") ? read_roster(cl.text("--roster")) : read_submissions(cl.text("--submissions"));
  if (auto* error = std::get_if<std::string>(&read)) return usage_error(kClassSpec, *error);
  auto& learners = std::get<std::vector<Learner>>(read);
  // --out inside the submissions folder (the default, when run there) is not a learner.
  std::erase_if(learners, [&](const Learner& l) { return fs::path(l.folder) == s.out.lexically_normal(); });
  for (const auto& learner : learners)
    if (learner.name == kSummaryCsv || learner.name == kSummaryHtml)
      return usage_error(kClassSpec, "a learner named '" + learner.name + "' would take the summary's place in --out");
  std::error_code error;
  fs::create_directories(s.out, error);
  if (error) return usage_error(kClassSpec, "cannot make " + s.out.string() + ": " + error.message());

  stop_learners_on_signal();
  std::printf("grader class: %zu learners, stages 1..%d, seed %llu, %d at a time, reports in %s\n", learners.size(),
              s.stage, static_cast<unsigned long long>(s.seed), s.jobs, s.out.string().c_str());
  std::fflush(stdout);
  const auto started = std::chrono::steady_clock::now();
  Progress progress(learners, isatty(STDOUT_FILENO), use_colour(STDOUT_FILENO));
  std::vector<ClassRow> rows(learners.size());
  for_each_in_parallel(learners.size(), s.jobs,
                       [&](std::size_t i) { rows[i] = run_learner(learners[i], s, progress); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  int passed = 0, failed = 0, errors = 0, skipped = 0;
  for (auto& row : rows) {
    for (const char* file : kLearnerReports)
      if (fs::exists(s.out / row.name / file)) row.reports.push_back(file);
    (row.verdict == "pass" ? passed : row.verdict == "fail" ? failed : errors)++;
    skipped += row.resumed;
  }
  char figures[200];
  std::snprintf(figures, sizeof figures,
                "%zu learners in %.1fs: %d passed, %d failed, %d errors; %zu graded, %d skipped", rows.size(),
                seconds, passed, failed, errors, rows.size() - skipped, skipped);
  ClassSummary summary{.title = "grader class: stages 1.." + std::to_string(s.stage),
                       .stage = s.stage,
                       .about = {"seed " + std::to_string(s.seed) + "; " + figures,
                                 "each learner's reports are in the folder named after them, beside this page"},
                       .rows = rows};
  const bool written = write_text_file((s.out / kSummaryCsv).string(), class_csv(summary)) &&
                       write_text_file((s.out / kSummaryHtml).string(), class_html(summary));
  const bool all_skipped = skipped == static_cast<int>(rows.size());
  std::printf("grader class: %s%s\n", figures,
              all_skipped ? " (every learner skipped: graded before; --fresh grades again)" : "");
  if (written)
    std::printf("grader class: summary in %s and %s\n", (s.out / kSummaryHtml).c_str(), (s.out / kSummaryCsv).c_str());
  return written ? 0 : 1;
}

}  // namespace grader
