// mutants.cc: see mutants.h.
#include "grader/cli/mutants.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "grader/base/parallel.h"
#include "grader/checks/check.h"
#include "grader/checks/runner.h"
#include "grader/cli/command_line.h"
#include "grader/cli/matrix.h"
#include "grader/record/truth.h"

namespace grader {
namespace {

const CommandSpec kMutantsSpec{
    .name = "grader mutants",
    .summary = "grades stage 6's mutants, each on several seeds (docs/teach/grader.md \"The grader\", mutants).",
    .usage = {"--bin-dir <build>/stages [--mutants grader/mutants] [--seeds N] [--seed S] [--jobs N]\n"
              "                 [--only a,b,...] [--until-named] [--histories K]"},
    .description = R"(Each grader/mutants/<name>.mutant is graded as build/stages/mutant_<name> (`make mutants` builds them all;
`make test` builds a few) with every check, on seeds S, S+1, ... S+N-1 (default: 3 seeds from 1). A mutant
is killed on a seed when a check fails, and named right when a failed check names the anomaly the mutant
file gives. Every finding of every check is held to what the mutant truly does (grader/record/truth.h): stage
6's traits minus those its `lacks:` line names (`contract` when its flaw is the contract itself); a finding
that is not true of it is printed and fails the run, as a mutant that survives does. Mutants that are not
built are listed and left out, unless --only names them.)",
    .flags = {{"--bin-dir", "DIR", "where the mutants' binaries are (required)"},
              {"--mutants", "DIR", "the mutant descriptions (default grader/mutants)"},
              {"--seeds", "N", "seeds per mutant (default 3)"},
              {"--seed", "S", "the first seed (default 1)"},
              {"--jobs", "N", "seeds graded at once (default 6)"},
              {"--only", "a,b,...", "grade only these mutants"},
              {"--histories", "K", "random histories each stageN.conformance runs (default 3; 0: none)"},
              {"--until-named", "", "end each seed's run at the first failed check that names the anomaly: the\n"
                                    "verdict is the same (killed and named right needs one such check), the\n"
                                    "lists of failed checks and anomalies stop there (make test uses it)"}},
    .closing = R"(Exit status: 0 when every graded mutant was killed and named right on every seed, and every finding about it
was true of it; 1 otherwise; 2 for a usage error or a mutant file without its mistake:, anomaly: or lacks:
line (or a lacks: that names no trait of stage 6).)"};

struct Mutant {
  std::string name, mistake, anomaly;
  std::vector<std::string> lacks;  // the traits of stage 6's row it lacks, or "contract" (its `lacks:` line)
  StageServer truth;               // what it truly does: stage 6's row without them (truth.h:lacking)
};

// The mutant, or what is wrong with its file: a line of mistake:, anomaly: or lacks: missing, a trait in
// lacks: that stage 6's row does not list (nor "contract").
std::variant<Mutant, std::string> read_mutant(const std::filesystem::path& path) {
  std::ifstream in(path);
  Mutant m{path.stem().string(), "", "", {}, {}};
  bool has_lacks = false;
  const auto value = [](const std::string& line, std::size_t at) {
    const auto from = line.find_first_not_of(' ', at);
    return from == std::string::npos ? std::string() : line.substr(from);
  };
  for (std::string line; std::getline(in, line) && line != "find:";) {
    if (line.rfind("mistake:", 0) == 0) m.mistake = value(line, 8);
    if (line.rfind("anomaly:", 0) == 0) m.anomaly = value(line, 8);
    if (line.rfind("lacks:", 0) == 0) {
      has_lacks = true;
      const std::string list = value(line, 6) + ",";
      for (std::size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1) {
        std::string trait = list.substr(at, comma - at);
        trait.erase(0, std::min(trait.find_first_not_of(' '), trait.size()));
        trait.erase(trait.find_last_not_of(' ') + 1);
        if (!trait.empty()) m.lacks.push_back(trait);
      }
    }
  }
  if (m.mistake.empty() || m.anomaly.empty()) return "has no mistake: or anomaly: line";
  if (!has_lacks || m.lacks.empty())
    return "has no lacks: line (the traits of stage 6 it lacks, stages/stage_servers.json \"traits\", or contract)";
  const StageServer* six = find_stage_server("6");
  if (!six) return "cannot be described: stage 6 is not in the table";
  for (const auto& trait : m.lacks)
    if (trait != kContractTrait && std::find(six->does.begin(), six->does.end(), trait) == six->does.end())
      return "lacks \"" + trait + "\", which is neither a trait of stage 6 (stages/stage_servers.json) nor contract";
  m.truth = lacking(*six, m.lacks, "mutant " + m.name);
  return m;
}

// --until-named: the run ends once a failed check names the mutant's anomaly, since "killed and named
// right" needs only one such check: the checks after it cannot change the verdict.
class UntilNamed : public Reporter {
 public:
  explicit UntilNamed(std::string anomaly) : anomaly_(std::move(anomaly)) {}
  void finished(const CheckOutcome& o) override {
    if (o.verdict != Verdict::Fail) return;
    for (const auto& f : o.findings) named_ = named_ || name(f.anomaly) == anomaly_;
  }
  bool wants_more() const override { return !named_; }

 private:
  std::string anomaly_;
  bool named_ = false;
};

struct Result {
  int seeds = 0, killed = 0, named = 0;
  std::set<std::string> failed_checks, anomalies;
  std::vector<std::string> untrue;  // findings not true of the mutant, a line each
  double seconds = 0;
  std::string error;
};

}  // namespace

int run_mutants(const std::vector<std::string>& args) {
  auto line = parse_command_line(kMutantsSpec, args);
  if (auto* status = std::get_if<int>(&line)) return *status;
  auto& cl = std::get<CommandLine>(line);
  const std::string bin_dir = cl.text("--bin-dir"), dir = cl.text("--mutants", "grader/mutants");
  std::uint64_t first_seed = 1;
  int seeds = 3, jobs = kDefaultJobs;
  cl.number("--seeds", 1, 1000, seeds);
  cl.number<std::uint64_t>("--seed", 0, UINT64_MAX, first_seed);
  cl.number("--jobs", 1, 64, jobs);
  int histories = kConformanceHistoriesWhenMany;
  cl.number("--histories", 0, 1000, histories);
  std::set<std::string> only;
  const std::string list = cl.text("--only") + ",";
  for (std::size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1)
    if (comma > at) only.insert(list.substr(at, comma - at));
  if (!cl.has("--bin-dir")) cl.fail("--bin-dir is required");
  if (cl.failed()) return usage_error(kMutantsSpec, cl.error());

  std::vector<Mutant> mutants;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    if (entry.path().extension() == ".mutant") {
      auto read = read_mutant(entry.path());
      if (auto* problem = std::get_if<std::string>(&read))
        return std::cerr << "grader mutants: " << entry.path().string() << " " << *problem << "\n", 2;
      auto& m = std::get<Mutant>(read);
      if (only.empty() || only.count(m.name)) mutants.push_back(m);
    }
  if (error) return usage_error(kMutantsSpec, "cannot read " + dir + ": " + error.message());
  std::sort(mutants.begin(), mutants.end(), [](const Mutant& a, const Mutant& b) { return a.name < b.name; });
  for (const auto& name : only)
    if (std::none_of(mutants.begin(), mutants.end(), [&](const Mutant& m) { return m.name == name; }))
      return usage_error(kMutantsSpec, "no mutant named " + name + " in " + dir);

  auto checks = all_checks();
  auto selected = select_checks(checks, Selection{6, std::nullopt, std::nullopt});
  const bool terminal = isatty(STDOUT_FILENO);
  kill_servers_on_signal();
  std::printf("grader mutants: %zu mutants x %d seeds (from seed %llu), binaries from %s\n", mutants.size(), seeds,
              static_cast<unsigned long long>(first_seed), bin_dir.c_str());
  auto started = std::chrono::steady_clock::now();
  std::vector<std::string> not_built;
  int graded = 0, all_killed = 0, all_named = 0, all_true = 0;
  for (const auto& m : mutants) {
    auto path = std::filesystem::path(bin_dir) / ("mutant_" + m.name);
    if (!std::filesystem::exists(path)) {
      not_built.push_back(m.name);
      continue;
    }
    Result r;
    auto t0 = std::chrono::steady_clock::now();
    // Each seed on its own server, several at once: grading is mostly waiting.
    struct SeedResult {
      bool killed = false, named = false;
      std::set<std::string> failed_checks, anomalies;
      std::vector<std::string> untrue;
      std::string error;
    };
    std::vector<SeedResult> per_seed(static_cast<std::size_t>(seeds));
    if (terminal) std::printf("\r  %-28s %d seeds ...", m.name.c_str(), seeds), std::fflush(stdout);
    for_each_in_parallel(per_seed.size(), jobs, [&](std::size_t s) {
      SeedResult& one = per_seed[s];
      const std::string command = path.string() + matrix_server_flags();
      try {
        auto target = Target::launch(command, facts_from_command(command));
        History history;
        UntilNamed until_named(m.anomaly);
        auto outcomes = run_checks(*target, history, selected, RunConfig{.seed = first_seed + s, .nonce = "", .repeat_command = "", .histories = histories},
                                   cl.has("--until-named") ? &until_named : nullptr);
        target->stop();
        // The truth table, whatever the verdict (as the matrix holds the table's servers: judge_truth).
        for (const auto& o : outcomes)
          for (const auto& f : o.findings)
            for (const auto& lie : untrue(m.truth, f, o.check->stage))
              one.untrue.push_back(o.check->name + ", seed " + std::to_string(first_seed + s) + ": " + lie + "\n        " +
                                   std::string(name(f.anomaly)) + ": " + f.what);
        for (const auto& o : outcomes) {
          if (o.verdict != Verdict::Fail) continue;
          one.killed = true;
          one.failed_checks.insert(o.check->name);
          for (const auto& f : o.findings) {
            one.anomalies.insert(std::string(name(f.anomaly)));
            one.named = one.named || name(f.anomaly) == m.anomaly;
          }
        }
      } catch (const std::exception& e) {
        one.error = e.what();
      }
    });
    for (const auto& one : per_seed) {
      if (!one.error.empty()) {
        r.error = one.error;
        continue;
      }
      ++r.seeds, r.killed += one.killed, r.named += one.named;
      r.failed_checks.insert(one.failed_checks.begin(), one.failed_checks.end());
      r.anomalies.insert(one.anomalies.begin(), one.anomalies.end());
      r.untrue.insert(r.untrue.end(), one.untrue.begin(), one.untrue.end());
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (terminal) std::printf("\r\033[2K");
    ++graded;
    const bool killed_every = r.error.empty() && r.killed == seeds, named_every = killed_every && r.named == seeds;
    all_killed += killed_every, all_named += named_every, all_true += r.untrue.empty();
    std::printf("  %-28s killed %d/%d  %s %d/%d  %5.1fs  %s\n", m.name.c_str(), r.killed, seeds,
                ("named " + m.anomaly).c_str(), r.named, seeds, r.seconds,
                !r.error.empty() ? ("did not start: " + r.error).c_str()
                : r.killed == 0  ? ("SURVIVED: " + m.mistake).c_str()
                                 : "");
    if (r.killed > 0) {
      std::string checks_text, anomalies_text;
      for (const auto& c : r.failed_checks) checks_text += (checks_text.empty() ? "" : ", ") + c;
      for (const auto& a : r.anomalies) anomalies_text += (anomalies_text.empty() ? "" : ", ") + a;
      std::printf("      by %s\n      named %s%s\n", checks_text.c_str(), anomalies_text.c_str(),
                  named_every ? "" : ("  (expected " + m.anomaly + " on every seed)").c_str());
    }
    if (!r.untrue.empty()) {
      std::string lacks_text;
      for (const auto& t : m.lacks) lacks_text += (lacks_text.empty() ? "" : ", ") + t;
      std::printf("      UNTRUE of it (lacks: %s), %zu finding(s):\n", lacks_text.c_str(), r.untrue.size());
      for (const auto& lie : r.untrue) std::printf("      - %s\n", lie.c_str());
    }
    std::fflush(stdout);  // one line per mutant as it is done, also into a pipe or a log
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!not_built.empty()) {
    std::printf("not built (make mutants):");
    for (const auto& n : not_built) std::printf(" %s", n.c_str());
    std::printf("\n");
  }
  std::printf("killed on every seed: %d of %d; named right on every seed: %d of %d; every finding true: %d of %d; "
              "%.1fs\n",
              all_killed, graded, all_named, graded, all_true, graded, seconds);
  return graded > 0 && all_killed == graded && all_named == graded && all_true == graded &&
                 (only.empty() || not_built.empty())
             ? 0
             : 1;
}

}  // namespace grader
