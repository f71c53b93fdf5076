// explore.cc: see explore.h.
#include "grader/cli/explore.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "grader/base/rng.h"
#include "grader/base/stage_binaries.h"
#include "grader/cli/command_line.h"
#include "grader/cli/repeat_line.h"
#include "grader/explore/history.h"
#include "grader/explore/runner.h"
#include "grader/explore/search.h"
#include "grader/report/report.h"
#include "grader/wire/server_process.h"

namespace grader {
namespace {

constexpr int kDefaultHistories = 20;
constexpr int kDefaultLength = 10;

const CommandSpec kExploreSpec{
    .name = "grader explore",
    .summary = "random histories against a server, every answer judged by the model of the contract\n"
               "(docs/teach/grader-checks-itself.md \"Explore: random histories judged by the model\").",
    .usage = {"--stage N [--seed S] [--histories K] [--length L] [--bin-dir DIR]",
              "--stage N [--seed S] [--histories K] [--length L] --server \"<command with {port} {db} {admin_token}>\""},
    .description = R"(Each history starts the server afresh, makes two clients and three accounts, then takes random steps a
client could take: transfers and payouts with fresh keys, repeats (identical, another amount, the same JSON
written differently, another client or endpoint), a request slowed by Lab-Delay-Ms and repeated while it
runs, a Lab-Crash and a restart, a Lab-Fail: busy, the lab clock moved past the lease or the key TTL, a
balance read; only steps the stage's contract speaks of. Every request and answer goes to the model
(grader/model/), which refuses an answer no state of a correct server of stage N allows. The first refused
history is shrunk to the shortest that still fails the same rule, and shown step by step with what came
back, the rule, its text and chapter, what the model allowed and what it observed.)",
    .flags = {{"--stage", "N", "the contract to hold the server to, 1 to 6 (default 6); also the reference server run"},
              {"--seed", "S", "the histories (default: a fresh seed, printed)"},
              {"--histories", "K", "how many histories (default " + std::to_string(kDefaultHistories) + ")"},
              {"--length", "L", "steps per history (default " + std::to_string(kDefaultLength) + ")"},
              {"--bin-dir", "DIR", "where the reference binaries are (default: <the grader's folder>/../stages)"},
              {"--server", "CMD", "start this command instead (it must honour --lab-controls); --lease and --key-ttl are read from it"}},
    .closing = R"(Exit status: 0 when every answer was allowed, 1 when one was refused (or the server did not start), 2 for
a usage error. Colour only on a terminal; NO_COLOR turns it off.)"};

struct ExploreOptions {
  int stage = 6;
  std::optional<std::uint64_t> seed;
  int histories = kDefaultHistories;
  int length = kDefaultLength;
  std::string bin_dir, server;
};

std::variant<ExploreOptions, int> parse_explore_options(const std::vector<std::string>& args) {
  auto line = parse_command_line(kExploreSpec, args);
  if (auto* status = std::get_if<int>(&line)) return *status;
  auto& cl = std::get<CommandLine>(line);
  ExploreOptions o;
  cl.number("--stage", 1, 6, o.stage);
  cl.number<std::uint64_t>("--seed", 0, UINT64_MAX, o.seed);
  cl.number("--histories", 1, 100'000, o.histories);
  cl.number("--length", 1, 1'000, o.length);
  o.bin_dir = cl.text("--bin-dir");
  o.server = cl.text("--server");
  if (!o.server.empty() && cl.has("--bin-dir")) cl.fail("--server starts its own command: give it without --bin-dir");
  if (cl.failed()) return usage_error(kExploreSpec, cl.error());
  return o;
}

std::string repeat_command(const ExploreOptions& o, std::uint64_t seed) {
  std::string cmd = repeat_prefix() + " explore --stage " + std::to_string(o.stage) + " --seed " + std::to_string(seed) +
                    " --histories " + std::to_string(o.histories) + " --length " + std::to_string(o.length);
  if (!o.server.empty()) return cmd + " --server " + shell_quote(o.server);
  return o.bin_dir.empty() ? cmd : cmd + " --bin-dir " + shell_quote(o.bin_dir);
}

// The text, each line indented by two spaces (the exchanges under their step by seven).
void print_indented(const std::string& text) {
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t to = text.find('\n', from);
    std::printf("  %s\n", text.substr(from, to - from).c_str());
    from = to == std::string::npos ? text.size() : to + 1;
  }
}

}  // namespace

int run_explore(const std::vector<std::string>& args) {
  auto parsed = parse_explore_options(args);
  if (auto* status = std::get_if<int>(&parsed)) return *status;
  const ExploreOptions& o = std::get<ExploreOptions>(parsed);
  std::string command = o.server;
  if (command.empty()) {
    auto binary = find_stage_binary(std::to_string(o.stage), o.bin_dir);
    if (!binary)
      return usage_error(kExploreSpec, "no binary for --stage " + std::to_string(o.stage) + " in " +
                                           (o.bin_dir.empty() ? default_bin_dir() : o.bin_dir) + " (build it, or give --bin-dir or --server)");
    command = stage_command(*binary);
  }
  const bool colour = use_colour(STDOUT_FILENO);
  const std::uint64_t seed = o.seed.value_or(fresh_seed());
  const ServerFacts facts = facts_from_command(command);
  std::printf("grader explore: stage %d, %d histories of up to %d steps, seed %llu (repeat with --seed %llu)\n", o.stage,
              o.histories, o.length, static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed));
  std::printf("grader explore: server %s\n", command.c_str());
  std::fflush(stdout);
  kill_servers_on_signal();

  const explore::StartServer start = [&] { return Target::launch(command, facts); };
  const explore::SearchProgress progress{
      .allowed =
          [&](int n, const explore::History& h) {
            std::printf("  history %d/%d: %zu steps, %d requests, every answer allowed\n", n, o.histories, h.size(),
                        explore::requests_in(h));
            std::fflush(stdout);
          },
      .shrinking =
          [&](int n, int at, const std::string& rule, std::size_t steps) {
            std::printf("  history %d/%d: refused at %s (rule %s); shrinking %zu steps\n", n, o.histories,
                        at >= 0 ? ("step " + std::to_string(at + 1)).c_str()
                                : at == explore::kSetup ? "the setup" : "the balances read at the end",
                        rule.c_str(), steps);
            std::fflush(stdout);
          }};
  const explore::Searched found =
      explore::search(start, o.stage, seed, {.histories = o.histories, .length = o.length}, facts,
                      std::chrono::steady_clock::time_point::max(), nullptr, progress);
  if (!found.error.empty()) {
    std::printf("grader explore: the server did not start: %s\n", found.error.c_str());
    return 1;
  }
  if (const auto& d = found.divergence) {
    std::printf("%sFAIL%s  history %d of seed %llu, shrunk from %zu steps to %zu (%d requests) in %d runs:\n",
                colour ? "\033[31m" : "", colour ? "\033[0m" : "", d->number, static_cast<unsigned long long>(seed),
                d->steps_before, d->history.size(), explore::requests_in(d->history), d->tries);
    print_indented(explore::steps_text(d->history, d->run) + explore::refusal_text(d->run) +
                   explore::confirmation_text(*d));
    std::printf("repeat: %s\n", repeat_command(o, seed).c_str());
    return 1;
  }
  std::printf("%d histories of up to %d steps, every answer allowed by the model\n", o.histories, o.length);
  return 0;
}

}  // namespace grader
