// matrix.cc: see matrix.h.
#include "grader/cli/matrix.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>

#include "grader/base/parallel.h"
#include "grader/base/rng.h"
#include "grader/base/stage_binaries.h"
#include "grader/checks/check.h"
#include "grader/checks/runner.h"
#include "grader/cli/grade.h"
#include "grader/cli/repeat_line.h"
#include "grader/record/truth.h"
#include "grader/report/report.h"

namespace grader {
namespace {

// Non-default flags, so the stage 6 policy check sees the values the server was started with.
constexpr const char* kServerFlags =
    " --port {port} --db {db} --admin-token {admin_token} --lab-controls --lease 20 --key-ttl 3600 --quiet";

const CheckOutcome* find(const GradedServer& server, const std::string& check) {
  for (const auto& o : server.outcomes)
    if (o.check->name == check) return &o;
  return nullptr;
}

const char* cell(const GradedServer& s, const std::string& check) {
  if (!s.built) return "-";
  if (!s.error.empty()) return "ERR";
  const CheckOutcome* o = find(s, check);
  if (!o) return "?";
  return o->verdict == Verdict::Pass ? "ok" : o->verdict == Verdict::Fail ? "FAIL" : "skip";
}

// The truth table (grader/record/truth.h): every finding made about a server whose truth is known must fit
// it, whatever the check's verdict is for. Each untrue finding is one line in `problems`.
void judge_truth(const StageServer& s, const GradedServer& graded, std::vector<std::string>& problems,
                 const std::string& repeat) {
  for (const auto& o : graded.outcomes)
    for (const auto& f : o.findings)
      for (const auto& lie : untrue(s, f, o.check->stage))
        problems.push_back(s.binary + ": a finding of " + o.check->name + " is not true of it: " + lie + "\n  " +
                           std::string(name(f.anomaly)) + ": " + f.what + "\n  repeat: " + repeat + " --check " +
                           o.check->name);
}

// The staircase rules for one subject; each broken rule is one line in `problems`.
void judge(const StageServer& s, const GradedServer& graded, const std::vector<Check>& checks,
           std::vector<std::string>& problems, const std::string& repeat) {
  if (!graded.error.empty()) return problems.push_back(s.binary + ": did not start: " + graded.error);
  judge_truth(s, graded, problems, repeat);
  if (s.must_fail) {
    const CheckOutcome* o = find(graded, *s.must_fail);
    if (!o || o->verdict != Verdict::Fail)
      problems.push_back(s.binary + ": the wrong turn is not caught: " + *s.must_fail + " passed");
    return;
  }
  std::map<int, bool> stage_failed;
  for (const auto& check : checks) {
    const CheckOutcome* o = find(graded, check.name);
    bool failed = o && o->verdict == Verdict::Fail;
    if (check.stage <= s.stage && (failed || !o))
      problems.push_back(s.binary + ": fails a check of its own or an earlier stage: " + check.name +
                         (o ? "\n" + describe_failure(*o, repeat, true) : " (not run)"));
    stage_failed[check.stage] = stage_failed[check.stage] || failed;
  }
  for (int later = s.stage + 1; later <= 6; ++later)
    if (!stage_failed[later])
      problems.push_back(s.binary + ": passes every check of stage " + std::to_string(later) +
                         ": no check of that stage tells it apart from stage " + std::to_string(later));
}

}  // namespace

std::string matrix_server_flags() { return kServerFlags; }

MatrixRun grade_matrix(const std::vector<Check>& checks, const std::vector<const Check*>& selected,
                       const std::string& bin_dir, std::uint64_t seed, int jobs, int histories) {
  auto started = std::chrono::steady_clock::now();
  const auto& subjects = stage_servers();
  MatrixRun run;
  for (const auto& subject : subjects)
    run.servers.push_back({.label = subject.label,
                           .binary = subject.binary,
                           .built = std::filesystem::exists(std::filesystem::path(bin_dir) / subject.binary)});
  std::mutex output;  // one finished line at a time
  std::size_t finished = 0;
  for_each_in_parallel(subjects.size(), jobs, [&](std::size_t i) {
    GradedServer& server = run.servers[i];
    if (!server.built) return;
    auto t0 = std::chrono::steady_clock::now();
    std::string command = (std::filesystem::path(bin_dir) / server.binary).string() + kServerFlags;
    try {
      auto target = Target::launch(command, facts_from_command(command));
      History history;
      // Twelve servers, each with every check: the conformance checks run fewer random histories (check.h).
      auto outcomes = run_checks(*target, history, selected, RunConfig{.seed = seed, .nonce = "", .repeat_command = "", .histories = histories}, nullptr);
      target->stop();
      server = graded_server(server.label, server.binary, std::move(outcomes), history);
    } catch (const std::exception& e) {
      server.error = e.what();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::size_t failed = 0;
    for (const auto& o : server.outcomes) failed += o.verdict == Verdict::Fail;
    std::lock_guard lock(output);
    std::printf("  %2zu/%zu  %-26s %6.1fs  %zu of %zu checks failed\n", ++finished, subjects.size(),
                server.binary.c_str(), seconds, failed, server.outcomes.size());
    std::fflush(stdout);  // progress, also into a pipe or a log
  });
  // Every reference stage and wrong turn must be there: a staircase judged on fewer proves less.
  for (const auto& server : run.servers)
    if (!server.built) run.problems.push_back(server.binary + " is not built in " + bin_dir);
  const std::string repeat = grader_path() + " --stage 6 --server '<bin-dir>/<binary>" + std::string(kServerFlags) +
                             "' --seed " + std::to_string(seed);
  for (std::size_t i = 0; i < subjects.size(); ++i)
    if (run.servers[i].built) judge(subjects[i], run.servers[i], checks, run.problems, repeat);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return run;
}

int run_matrix(const GraderOptions& options) {
  const std::uint64_t seed = options.seed.value_or(fresh_seed());
  auto checks = all_checks();
  Selection everything{6, std::nullopt, std::nullopt};
  auto selected = select_checks(checks, everything);
  kill_servers_on_signal();

  const int jobs = options.jobs.value_or(kDefaultJobs);
  std::cout << "grader matrix: seed " << seed << ", binaries from " << options.bin_dir << ", " << jobs
            << " at a time\n" << std::flush;
  MatrixRun run = grade_matrix(checks, selected, options.bin_dir, seed, jobs,
                               options.histories.value_or(kConformanceHistoriesWhenMany));

  // The table: one row per check, one column per binary.
  std::printf("\n%-34s", "check");
  for (const auto& s : run.servers) std::printf(" %-5s", s.label.c_str());
  std::printf("\n");
  for (const Check* check : selected) {
    std::printf("%-34s", check->name.c_str());
    for (const auto& s : run.servers) std::printf(" %-5s", cell(s, check->name));
    std::printf("\n");
  }
  std::printf("\ncolumns:");
  for (const auto& s : run.servers) std::printf(" %s=%s", s.label.c_str(), s.binary.c_str());
  std::printf("\n");
  for (const auto& p : run.problems) std::cout << "STAIRCASE BROKEN: " << p << "\n";
  std::printf("%s in %.1fs (seed %llu)\n", run.problems.empty() ? "staircase holds" : "staircase broken", run.seconds,
              static_cast<unsigned long long>(seed));
  bool written = true;
  if (!options.html_path.empty()) {
    HtmlReport report{.title = "grader matrix",
                      .about = {"seed " + std::to_string(seed) + ", binaries from " + options.bin_dir,
                                "repeat: " + repeat_prefix() + " matrix --bin-dir " + shell_quote(options.bin_dir) +
                                    " --seed " + std::to_string(seed)},
                      .checks = selected,
                      .servers = std::move(run.servers),
                      .staircase = run.problems,
                      .book = local_book_url()};
    written = write_report_html(options.html_path, report);
    if (written) std::cout << "grader matrix: report in " << options.html_path << "\n";
  }
  return run.problems.empty() && written ? 0 : 1;
}

}  // namespace grader
