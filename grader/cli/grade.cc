// grade.cc: see grade.h. The order of a run: seed, history, server, contract, checks, reports.
#include "grader/cli/grade.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "grader/base/rng.h"
#include "grader/base/stage_binaries.h"
#include "grader/checks/runner.h"
#include "grader/cli/repeat_line.h"
#include "grader/report/junit_xml.h"
#include "grader/report/report.h"
#include "grader/report/report_html.h"
#include "grader/report/results_json.h"

namespace grader {
namespace {

// The grader as it was started, from where it ran (repeat_line.h), and the selection as it was given:
// --only N alone, or --stage N.
std::string repeat_command(const GraderOptions& o, std::uint64_t seed) {
  std::string cmd = repeat_prefix();
  cmd += o.only ? " --only " + std::to_string(*o.only) : " --stage " + std::to_string(o.stage);
  cmd += o.server.empty() ? " --url " + shell_quote(o.url) + " --admin-token " + shell_quote(o.admin_token)
                          : " --server " + shell_quote(o.server);
  if (o.lease_seconds) cmd += " --lease " + std::to_string(*o.lease_seconds);
  if (o.key_ttl_seconds) cmd += " --key-ttl " + std::to_string(*o.key_ttl_seconds);
  if (o.sandbox) cmd += " --sandbox";
  if (o.histories) cmd += " --histories " + std::to_string(*o.histories);
  return cmd + " --seed " + std::to_string(seed);
}

// Under --sandbox the server does not see the folders the grader writes its reports into, nor --sandbox-hide
// (sandbox.h hides the folder around the working folder, the home folder and /tmp itself).
SandboxSettings sandbox_of(const GraderOptions& o) {
  SandboxSettings sandbox{.enabled = o.sandbox, .hidden = {}};
  for (const std::string& file : {o.json_path, o.junit_path, o.html_path, o.history_path})
    if (!file.empty()) sandbox.hidden.push_back(std::filesystem::absolute(file).parent_path().string());
  if (!o.sandbox_hide.empty()) sandbox.hidden.push_back(o.sandbox_hide);
  return sandbox;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) std::cerr << "grader: cannot write " << path << "\n";
  return static_cast<bool>(out);
}

}  // namespace

int run_grade(const GraderOptions& o) {
  if (o.sandbox)
    if (const std::string why = sandbox_unavailable(); !why.empty()) {
      std::cerr << "grader: --sandbox: " << why << "\n";
      return 2;  // never a run without the sandbox that was asked for
    }
  const bool colour = use_colour(STDOUT_FILENO);
  const std::uint64_t seed = o.seed.value_or(fresh_seed());
  const std::string repeat = repeat_command(o, seed);
  ServerFacts facts = facts_from_command(o.server);
  if (o.lease_seconds) facts.lease_seconds = *o.lease_seconds;
  if (o.key_ttl_seconds) facts.key_ttl_seconds = *o.key_ttl_seconds;

  auto all = all_checks();
  Selection selection{o.stage, o.only, o.check};
  auto selected = select_checks(all, selection);
  if (selected.empty()) {
    std::cerr << "grader: no check is named '" << o.check.value_or("") << "' (grader --list shows them)\n";
    return 2;
  }

  History history;
  std::ofstream history_file;
  if (!o.history_path.empty()) {
    history_file.open(o.history_path, std::ios::binary);
    history.stream_to(&history_file);
  } else if (o.verbose) {
    history.stream_to(&std::cerr);
  }

  std::cout << "grader: seed " << seed << " (repeat with --seed " << seed << ")\n";
  auto started = std::chrono::steady_clock::now();
  std::unique_ptr<Target> target;
  kill_servers_on_signal();
  try {
    if (!o.server.empty()) {
      ServerLimits limits;
      if (o.server_memory_mib) limits.memory_mib = *o.server_memory_mib;
      limits.sandbox = sandbox_of(o);
      target = Target::launch(o.server, facts, limits);
    } else {
      auto addresses = parse_urls(o.url);
      if (auto* error = std::get_if<std::string>(&addresses)) {
        std::cerr << "grader: " << *error << "\n";
        return 2;
      }
      target = Target::attach(std::get<std::vector<Address>>(addresses), o.admin_token, facts);
    }
  } catch (const StartError& e) {
    std::cout << e.what();
    if (!o.json_path.empty())
      write_file(o.json_path,
                 results_json({}, repeat, 0, std::string("The server did not start.\n") + e.what()).dump(2));
    if (!o.junit_path.empty()) write_file(o.junit_path, junit_xml({}, repeat, 0));
    return 1;
  }
  std::cout << "grader: server " << target->describe() << "\n";

  // With --url the server keeps its keys between runs: a per-run nonce keeps this run's keys new.
  RunConfig config{.seed = seed,
                   .nonce = o.url.empty() ? "" : std::to_string(fresh_seed() % 100'000) + "-",
                   .repeat_command = repeat,
                   .histories = o.histories.value_or(kConformanceHistories)};
  TerminalReporter reporter(std::cout, colour, repeat, isatty(STDOUT_FILENO), o.all_findings);
  auto outcomes = run_checks(*target, history, selected, config, &reporter);
  target->stop();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  print_summary(std::cout, outcomes, colour, seconds);

  std::string header = "seed " + std::to_string(seed) + "; server: " + target->describe();
  bool written = true;  // a report that was asked for and not written is a failed run, whatever the checks say
  if (!o.json_path.empty()) written &= write_file(o.json_path, results_json(outcomes, repeat, seconds, header).dump(2));
  if (!o.junit_path.empty()) written &= write_file(o.junit_path, junit_xml(outcomes, repeat, seconds));
  if (!o.html_path.empty()) {
    // The server as given (its placeholders, not the admin token they were filled with).
    HtmlReport report{.title = "grader: " + (o.server.empty() ? o.url : o.server),
                      .about = {"seed " + std::to_string(seed), "repeat: " + repeat},
                      .checks = selected,
                      .servers = {graded_server("server", o.server.empty() ? o.url : o.server, outcomes, history)},
                      .book = local_book_url()};
    if (write_report_html(o.html_path, report))
      std::cout << "grader: report in " << o.html_path << "\n";
    else
      written = false;
  }
  if (!o.history_path.empty()) {
    written &= static_cast<bool>(history_file);
    std::cout << "grader: history in " << o.history_path << "\n";
  }
  return all_passed(outcomes) && written ? 0 : 1;
}

}  // namespace grader
