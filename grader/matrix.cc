// matrix.cc: see matrix.h.
#include "grader/matrix.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>

#include "grader/check.h"
#include "grader/grade.h"
#include "grader/parallel.h"
#include "grader/report.h"
#include "grader/runner.h"
#include "grader/stage_binaries.h"

namespace grader {
namespace {

// Non-default flags, so the stage 6 policy check sees the values the server was started with.
constexpr const char* kServerFlags =
    " --port {port} --db {db} --admin-token {admin_token} --lab-controls --lease 20 --key-ttl 3600 --quiet";

struct Column {
  const Subject* subject = nullptr;
  bool built = false;
  std::string start_error;
  std::vector<CheckOutcome> outcomes;
  double seconds = 0;
  const CheckOutcome* find(const std::string& name) const {
    for (const auto& o : outcomes)
      if (o.check->name == name) return &o;
    return nullptr;
  }
};

const char* cell(const Column& c, const std::string& check) {
  if (!c.built) return "-";
  if (!c.start_error.empty()) return "ERR";
  const CheckOutcome* o = c.find(check);
  if (!o) return "?";
  return o->verdict == Verdict::Pass ? "ok" : o->verdict == Verdict::Fail ? "FAIL" : "skip";
}

// The staircase rules for one column; each broken rule is one line in `problems`.
void judge(const Column& c, const std::vector<Check>& checks, std::vector<std::string>& problems,
           const std::string& repeat) {
  const Subject& s = *c.subject;
  if (!c.start_error.empty()) return problems.push_back(s.binary + ": did not start: " + c.start_error);
  if (s.must_fail) {
    const CheckOutcome* o = c.find(*s.must_fail);
    if (!o || o->verdict != Verdict::Fail)
      problems.push_back(s.binary + ": the wrong turn is not caught: " + *s.must_fail + " passed");
    return;
  }
  std::map<int, bool> stage_failed;
  for (const auto& check : checks) {
    const CheckOutcome* o = c.find(check.name);
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

const std::vector<Subject>& matrix_subjects() {
  static const std::vector<Subject> subjects = {
      {"stage1_naive", "s1", 1, {}},
      {"stage2_unique_key", "s2", 2, {}},
      {"stage3_fingerprint", "s3", 3, {}},
      {"stage4_two_phase", "s4", 4, {}},
      {"stage5_replay", "s5", 5, {}},
      {"stage6_scope_ttl", "s6", 6, {}},
      {"wrong_select_then_insert", "w-sel", 2, "stage2.simultaneous-2"},
      {"wrong_insert_or_ignore", "w-ign", 2, "stage2.lost-response-retry"},
      {"wrong_raw_fingerprint", "w-raw", 3, "stage3.equivalent-body"},
      {"wrong_completed_first", "w-cpl", 4, "stage4.crash-before-money"},
      {"wrong_money_first", "w-mny", 4, "stage4.crash-after-money"},
  };
  return subjects;
}

int run_matrix(const GraderOptions& options) {
  const std::uint64_t seed = options.seed.value_or(fresh_seed());
  auto checks = all_checks();
  Selection everything{6, std::nullopt, std::nullopt};
  auto selected = select_checks(checks, everything);
  auto started = std::chrono::steady_clock::now();
  kill_servers_on_signal();

  const int jobs = options.jobs.value_or(kDefaultJobs);
  std::cout << "grader matrix: seed " << seed << ", binaries from " << options.bin_dir << ", " << jobs
            << " at a time\n";
  std::vector<Column> columns(matrix_subjects().size());
  std::vector<std::string> missing;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    columns[i].subject = &matrix_subjects()[i];
    columns[i].built = std::filesystem::exists(std::filesystem::path(options.bin_dir) / columns[i].subject->binary);
    if (!columns[i].built) missing.push_back(columns[i].subject->binary);
  }
  std::mutex output;  // one finished line at a time
  std::size_t finished = 0;
  for_each_in_parallel(columns.size(), jobs, [&](std::size_t i) {
    Column& c = columns[i];
    if (!c.built) return;
    auto t0 = std::chrono::steady_clock::now();
    std::string command = (std::filesystem::path(options.bin_dir) / c.subject->binary).string() + kServerFlags;
    try {
      auto target = Target::launch(command, facts_from_command(command));
      History history;
      c.outcomes = run_checks(*target, history, selected, RunConfig{seed, "", ""}, nullptr);
      target->stop();
    } catch (const std::exception& e) {
      c.start_error = e.what();
    }
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::size_t failed = 0;
    for (const auto& o : c.outcomes) failed += o.verdict == Verdict::Fail;
    std::lock_guard lock(output);
    std::printf("  %2zu/%zu  %-26s %6.1fs  %zu of %zu checks failed\n", ++finished, columns.size(),
                c.subject->binary.c_str(), c.seconds, failed, c.outcomes.size());
    std::fflush(stdout);  // progress, also into a pipe or a log
  });

  // The table: one row per check, one column per binary.
  std::printf("\n%-34s", "check");
  for (const auto& c : columns) std::printf(" %-5s", c.subject->label.c_str());
  std::printf("\n");
  for (const Check* check : selected) {
    std::printf("%-34s", check->name.c_str());
    for (const auto& c : columns) std::printf(" %-5s", cell(c, check->name));
    std::printf("\n");
  }
  std::printf("\ncolumns:");
  for (const auto& c : columns) std::printf(" %s=%s", c.subject->label.c_str(), c.subject->binary.c_str());
  std::printf("\n");
  // Every reference stage and wrong turn must be there: a staircase judged on fewer proves less.
  std::vector<std::string> problems;
  for (const auto& m : missing) problems.push_back(m + " is not built in " + options.bin_dir);
  const std::string repeat =
      grader_path() + " --stage 6 --server '<bin-dir>/<binary>" + std::string(kServerFlags) + "' --seed " +
      std::to_string(seed);
  for (const auto& c : columns)
    if (c.built) judge(c, checks, problems, repeat);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const auto& p : problems) std::cout << "STAIRCASE BROKEN: " << p << "\n";
  std::printf("%s in %.1fs (seed %llu)\n", problems.empty() ? "staircase holds" : "staircase broken", seconds,
              static_cast<unsigned long long>(seed));
  return problems.empty() ? 0 : 1;
}

}  // namespace grader
