// load.cc: see load.h. This file runs the phases and prints the table; the clients are in load_traffic.cc,
// the settling and the audit of the money in load_audit.cc, the memory figures in process_memory.cc.
#include "grader/cli/load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <latch>
#include <map>
#include <random>
#include <thread>

#include "grader/base/process_memory.h"
#include "grader/base/stage_binaries.h"
#include "grader/cli/command_line.h"
#include "grader/load/load_audit.h"
#include "grader/load/load_traffic.h"
#include "grader/report/report.h"
#include "grader/wire/lab_api.h"
#include "grader/wire/target.h"

namespace grader {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// The phases (load.h). The counts are the issue's: 256 keep-alive clients and 128 slow sockets stopped a
// server whose pool had 128 workers.
constexpr int kPhase1Connections = 64;
constexpr int kPhase2Connections = 256;
constexpr int kSlowSockets = 128;
constexpr int kIdleConnections = 32;
constexpr int kHealthyClients = 8;
constexpr int kDefaultSecondsPerPhase = 8;
// Shorter than twice the patience, a starved connection could wait out the phase and still look served.
constexpr int kMinSecondsPerPhase = 2 * static_cast<int>(kLoadPatience.count() / 1000);
// Phase 3 gives the attackers this long to take their connections before the healthy clients start.
constexpr milliseconds kAttackHeadStart{1'000};

// One account per client; each connection sends from its client's account. Balances far above what a run
// can move (kMaxAmount per transfer in load_traffic.cc), so no transfer is refused for funds.
constexpr int kClients = 32;
constexpr std::int64_t kOpeningBalance = 1'000'000'000'000;

// Memory must be flat: the end of phase 3 at most this far above phase 2's peak. By phase 2's peak the
// server has served its most connections at once, so what it keeps per worker is warm: a thread's stack,
// the thread's SQLite connection and page cache, an allocator arena (measured: 16 MiB over the first phase
// for a pool of 128 workers, 85 MiB for 512, then at most 2 MiB more). Phase 3 then sends about as many
// requests again (healthy clients, back to back) while 160 connections hold on: a leak of a kilobyte per
// request, or of 100 KiB per slow socket, ends above the bound. (Measured after phase 3, not after the
// audit: reading the whole ledger back is the grader's doing, and costs the server tens of MiB.)
constexpr std::int64_t kMemoryGrowthAllowedKib = 16 * 1024;

// Failures found after the phases that are printed; a server that runs retries again fails every key.
constexpr std::size_t kShownFailures = 8;

// File descriptors: every connection of phase 2 with its simultaneous copy, phase 3's sockets, and room.
constexpr rlim_t kDescriptorsNeeded = 2 * kPhase2Connections + kSlowSockets + kIdleConnections + 256;

const CommandSpec kLoadSpec{
    .name = "grader load",
    .summary = "bounded loopback load on one server (docs/reference/plumbing.md \"Plumbing\", Reliability, \"Load\").",
    .usage = {"[--bin-dir <build>/stages | --server \"<command>\"] [--seconds-per-phase S]"},
    .description = R"(Starts stage 6 (from --bin-dir, default: beside the grader), or the --server command with {port}, {db}
and {admin_token}, and runs three phases of S seconds each (default 8):
  1  64 keep-alive connections: new transfers, retries of completed keys (each must be replayed byte for
     byte), and the same new key sent on two connections at once (one 201; the other 409 in progress or
     the same 201 replayed)
  2  the same on 256 connections: every connection is answered, no request waits over 3 s
  3  slow clients: 128 sockets sending a request head at 4 bytes a second and 32 idle keep-alive
     connections, while 8 healthy clients send transfers; each must be answered within 3 s
Then requests left without an answer are sent again until answered, and the money is audited: one ledger
row per key answered 201, and every balance equal to its opening balance moved by the accepted transfers.
The server's memory (VmRSS of its process group) must end phase 3 at most 16 MiB above phase 2's peak.

Prints one row per phase: connections, requests, requests per second, latency (p50, p99, max), memory
(start, peak, end), verdict and statuses; then what failed. About 40 s with the default phases.)",
    .flags = {{"--bin-dir", "DIR", "where stage 6 is (default: <the grader's folder>/../stages)"},
              {"--server", "CMD", "start this command instead, with {port}, {db} and {admin_token}"},
              {"--seconds-per-phase", "S", "each phase's length in seconds (default 8)"}},
    .closing = R"(Exit status: 0 when every phase and the audit passed; 1 when one failed; 2 for a usage error or a server
that does not start. Colour only on a terminal; NO_COLOR turns it off.)"};

struct PhaseResult {
  std::string name;
  int connections = 0;
  double seconds = 0;
  ClientLog log;
  int min_answers_per_connection = 0;
  MemoryFigures memory;
  std::vector<std::string> notes;     // what the row cannot show
  std::vector<std::string> failures;  // empty: PASS
};

// The kernel's default soft limit is 1024 descriptors; the phases need more, and so does the server,
// which inherits the grader's limits.
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= kDescriptorsNeeded) return;
  limit.rlim_cur = std::min(limit.rlim_max, kDescriptorsNeeded);
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < kDescriptorsNeeded)
    std::fprintf(stderr, "grader load: warning: only %llu file descriptors (ulimit -n); phase 2 needs about %llu\n",
                 static_cast<unsigned long long>(limit.rlim_cur), static_cast<unsigned long long>(kDescriptorsNeeded));
}

std::string random_nonce() {
  std::random_device entropy;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", entropy(), entropy());
  return text;
}

LoadBank open_bank(Target& target, const std::string& nonce) {
  LabApi api(target);
  LoadBank bank{target.address(), nonce, {}};
  for (int i = 0; i < kClients; ++i) {
    auto client = api.create_client("load-" + nonce + "-" + std::to_string(i));
    auto account = api.create_account(client.id, kOpeningBalance, "USD");
    bank.accounts.push_back({account.id, client.token, kOpeningBalance});
  }
  return bank;
}

// Shows the phase's seconds on a terminal while it runs; a log gets the one line that starts it.
class Progress {
 public:
  Progress(const std::string& what, int seconds) : terminal_(isatty(STDERR_FILENO) != 0) {
    if (!terminal_) {
      std::fprintf(stderr, "%s ...\n", what.c_str());
      return;
    }
    ticker_ = std::jthread([what, seconds](std::stop_token stop) {
      for (auto start = LoadClock::now(); !stop.stop_requested(); std::this_thread::sleep_for(milliseconds(250))) {
        const double elapsed = std::chrono::duration<double>(LoadClock::now() - start).count();
        std::fprintf(stderr, "\r\033[2K%s: %.0f of %d s", what.c_str(), std::min(elapsed, 1.0 * seconds), seconds);
      }
    });
  }
  ~Progress() {
    if (!terminal_) return;
    ticker_ = {};
    std::fprintf(stderr, "\r\033[2K");
  }

 private:
  bool terminal_;
  std::jthread ticker_;
};

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  auto at = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

std::string seconds_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", ms / 1000);
  return text;
}

// The failures every phase shares: a request that broke the contract, and a request that waited too long.
void judge_phase(PhaseResult& r) {
  if (r.log.violation_count > 0) {
    r.failures.push_back(std::to_string(r.log.violation_count) + " requests did not get what the contract says, e.g.:");
    for (const auto& v : r.log.violations) r.failures.push_back("    " + v);
  }
  // A request that got no answer at all is among the violations already.
  if (r.log.longest_wait_answered && r.log.longest_wait_ms > static_cast<double>(kLoadPatience.count()))
    r.failures.push_back("a request waited " + seconds_text(r.log.longest_wait_ms) + " for its answer (at most " +
                         seconds_text(static_cast<double>(kLoadPatience.count())) + "): connections starve");
}

// Phases 1 and 2: `connections` mixed keep-alive clients for `seconds`.
PhaseResult run_keep_alive_phase(const LoadBank& bank, Target& target, const std::string& phase, int connections,
                                 int seconds_per_phase) {
  PhaseResult r;
  r.name = phase + " keep-alive, mixed";
  r.connections = connections;
  std::vector<ClientLog> logs(static_cast<std::size_t>(connections));
  Progress progress("phase " + phase + ": " + std::to_string(connections) + " keep-alive connections",
                    seconds_per_phase);
  MemoryWatch memory(target.process_group());
  const auto start = LoadClock::now();
  const LoadPlan plan{phase, start + seconds(seconds_per_phase)};
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < connections; ++i)
      clients.emplace_back([&, i] { logs[static_cast<std::size_t>(i)] = run_mixed_client(bank, i, plan); });
  }  // joins
  r.seconds = std::chrono::duration<double>(LoadClock::now() - start).count();
  r.memory = memory.stop();
  r.min_answers_per_connection = logs.empty() ? 0 : logs.front().answers;
  for (auto& log : logs) {
    r.min_answers_per_connection = std::min(r.min_answers_per_connection, log.answers);
    r.log.merge(std::move(log));
  }
  r.notes.push_back("answers per connection: at least " + std::to_string(r.min_answers_per_connection) +
                    "; longest wait for an answer " + seconds_text(r.log.longest_wait_ms) + "; " +
                    std::to_string(r.log.sent_again) + " requests sent again after their kept-alive connection closed");
  judge_phase(r);
  if (r.min_answers_per_connection == 0)
    r.failures.push_back("a connection got no answer at all during the phase");
  return r;
}

// Phase 3: slow sockets and idle connections first, then healthy clients while they hold on.
PhaseResult run_slow_client_phase(const LoadBank& bank, Target& target, int seconds_per_phase) {
  PhaseResult r;
  r.name = "3 slow clients";
  r.connections = kSlowSockets + kIdleConnections + kHealthyClients;
  Progress progress("phase 3: " + std::to_string(kSlowSockets) + " slow sockets, " + std::to_string(kIdleConnections) +
                        " idle connections, " + std::to_string(kHealthyClients) + " healthy clients",
                    seconds_per_phase);
  MemoryWatch memory(target.process_group());
  // The attack outlasts the healthy clients' last request, so that every healthy request runs under it.
  const LoadPlan attack{"3", LoadClock::now() + kAttackHeadStart + seconds(seconds_per_phase) + kLoadPatience};
  const LoadPlan healthy{"3", attack.stop_sending - kLoadPatience};
  std::vector<SlowLog> slow(kSlowSockets);
  std::vector<IdleLog> idle(kIdleConnections);
  std::vector<ClientLog> logs(kHealthyClients);
  std::latch attackers_started(kSlowSockets + kIdleConnections);
  double healthy_seconds = 0;
  {
    std::vector<std::jthread> attackers;
    for (int i = 0; i < kSlowSockets; ++i)
      attackers.emplace_back(
          [&, i] { slow[static_cast<std::size_t>(i)] = run_slow_socket(bank, attack, attackers_started); });
    for (int i = 0; i < kIdleConnections; ++i)
      attackers.emplace_back(
          [&, i] { idle[static_cast<std::size_t>(i)] = run_idle_connection(bank, i, attack, attackers_started); });
    attackers_started.wait();
    std::this_thread::sleep_for(kAttackHeadStart);
    const auto start = LoadClock::now();
    {
      std::vector<std::jthread> clients;
      for (int i = 0; i < kHealthyClients; ++i)
        clients.emplace_back([&, i] { logs[static_cast<std::size_t>(i)] = run_healthy_client(bank, i, healthy); });
    }  // joins the healthy clients; the attackers below
    healthy_seconds = std::chrono::duration<double>(LoadClock::now() - start).count();
  }
  r.seconds = healthy_seconds;
  r.memory = memory.stop();
  for (auto& log : logs) r.log.merge(std::move(log));
  std::int64_t slow_bytes = 0;
  int slow_closed = 0, idle_closed = 0, idle_answers = 0, idle_requests = 0;
  for (const auto& s : slow) slow_bytes += s.bytes_sent, slow_closed += s.closed_by_server;
  for (const auto& i : idle) idle_requests += i.requests, idle_answers += i.answers, idle_closed += i.closed_by_server;
  r.notes.push_back("healthy requests answered within " + seconds_text(static_cast<double>(kLoadPatience.count())) +
                    ": " + std::to_string(r.log.statuses["201"]) + " of " + std::to_string(r.log.requests));
  r.notes.push_back(std::to_string(kSlowSockets) + " slow sockets sent " + std::to_string(slow_bytes) +
                    " bytes at 4 B/s; the server hung up on them " + std::to_string(slow_closed) + " times");
  r.notes.push_back(std::to_string(kIdleConnections) + " idle keep-alive connections: " + std::to_string(idle_answers) +
                    " of " + std::to_string(idle_requests) + " requests answered; closed by the server " +
                    std::to_string(idle_closed) + " times");
  judge_phase(r);
  return r;
}

std::string mib(std::int64_t kib) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(kib) / 1024);
  return text;
}

// "201 8012, replay 2990, 409 431": the expected statuses first, then any other.
std::string statuses_text(const std::map<std::string, int>& statuses) {
  const std::pair<const char*, const char*> known[] = {
      {"201", "201"}, {"201 replay", "replay"}, {"409 in-progress", "409"}};
  std::string out;
  auto add = [&](const std::string& label, int n) { out += (out.empty() ? "" : ", ") + label + " " + std::to_string(n); };
  for (const auto& [label, shown] : known)
    if (auto it = statuses.find(label); it != statuses.end()) add(shown, it->second);
  for (const auto& [label, n] : statuses)
    if (std::none_of(std::begin(known), std::end(known), [&](const auto& k) { return label == k.first; })) add(label, n);
  return out;
}

void print_table(const std::vector<PhaseResult>& phases, bool colour) {
  const char* green = colour ? "\033[32m" : "";
  const char* red = colour ? "\033[31m" : "";
  const char* plain = colour ? "\033[0m" : "";
  std::printf("\n%-20s %5s %9s %7s %8s %8s %8s  %-22s %-7s %s\n", "phase", "conns", "requests", "req/s", "p50 ms",
              "p99 ms", "max ms", "RSS MiB start/peak/end", "verdict", "statuses");
  for (const auto& p : phases) {
    const auto& l = p.log.latencies_ms;
    const std::string rss = mib(p.memory.start_kib) + "/" + mib(p.memory.peak_kib) + "/" + mib(p.memory.end_kib);
    const bool pass = p.failures.empty();
    std::printf("%-20s %5d %9d %7.0f %8.1f %8.1f %8.1f  %-22s %s%-7s%s %s\n", p.name.c_str(), p.connections,
                p.log.requests, p.seconds > 0 ? p.log.answers / p.seconds : 0.0, percentile(l, 0.50),
                percentile(l, 0.99), l.empty() ? 0.0 : *std::max_element(l.begin(), l.end()), rss.c_str(),
                pass ? green : red, pass ? "PASS" : "FAIL", plain, statuses_text(p.log.statuses).c_str());
  }
  for (const auto& p : phases)
    for (const auto& n : p.notes) std::printf("  %s: %s\n", p.name.substr(0, 1).c_str(), n.c_str());
}

}  // namespace

int run_load(const std::vector<std::string>& args) {
  auto line = parse_command_line(kLoadSpec, args);
  if (auto* status = std::get_if<int>(&line)) return *status;
  auto& cl = std::get<CommandLine>(line);
  std::string bin_dir = cl.text("--bin-dir"), server = cl.text("--server");
  int seconds_per_phase = kDefaultSecondsPerPhase;
  cl.number("--seconds-per-phase", kMinSecondsPerPhase, 600, seconds_per_phase);
  if (cl.has("--bin-dir") && cl.has("--server")) cl.fail("give --bin-dir or --server, not both");
  if (cl.failed()) return usage_error(kLoadSpec, cl.error());
  if (server.empty()) {
    auto stage6 = find_stage_binary("6", bin_dir);
    if (!stage6)
      return usage_error(kLoadSpec, "no built stage 6 in " + (bin_dir.empty() ? default_bin_dir() : bin_dir) + " (run make build)");
    server = stage_command(*stage6);
  }

  raise_descriptor_limit();
  kill_servers_on_signal();
  std::unique_ptr<Target> target;
  try {
    target = Target::launch(server, facts_from_command(server));
  } catch (const StartError& e) {
    std::cerr << "grader load: " << e.what() << "\n";
    return 2;
  }
  std::printf("grader load: %s\n  %d s per phase; a request may wait %lld s for its answer\n",
              target->describe().c_str(), seconds_per_phase, static_cast<long long>(kLoadPatience.count() / 1000));
  std::fflush(stdout);

  std::vector<PhaseResult> phases;
  std::vector<std::string> after;  // failures found after the phases
  std::vector<std::string> after_notes;
  try {
    LoadBank bank = open_bank(*target, random_nonce());
    phases.push_back(run_keep_alive_phase(bank, *target, "1", kPhase1Connections, seconds_per_phase));
    phases.push_back(run_keep_alive_phase(bank, *target, "2", kPhase2Connections, seconds_per_phase));
    phases.push_back(run_slow_client_phase(bank, *target, seconds_per_phase));

    std::vector<LoadKey> keys;
    for (auto& p : phases) std::move(p.log.keys.begin(), p.log.keys.end(), std::back_inserter(keys));
    std::string note;
    {
      Progress progress("settling the keys left without an answer", static_cast<int>(kSettlePatience.count() / 1000));
      for (auto& f : settle_open_keys(bank.server, keys, &note)) after.push_back(f);
    }
    after_notes.push_back("settled: " + note);
    for (auto& f : audit_money(*target, bank, keys, &note)) after.push_back(f);
    after_notes.push_back("money: " + note);

    const std::int64_t bound = phases[1].memory.peak_kib + kMemoryGrowthAllowedKib;
    const std::int64_t end = phases.back().memory.end_kib;
    after_notes.push_back("memory: " + mib(end) + " MiB at the end of phase 3; at most " + mib(bound) +
                          " (phase 2's peak + " + mib(kMemoryGrowthAllowedKib) + ")");
    if (end > bound)
      after.push_back("memory is not flat: " + mib(end) + " MiB at the end of phase 3, over the bound of " + mib(bound) +
                      " MiB");
  } catch (const std::exception& e) {
    after.push_back(std::string("the run stopped: ") + e.what());
  }
  if (!target->alive()) after.push_back("the server ended during the run (" + target->stderr_tail() + ")");
  target->stop();

  const bool colour = use_colour(STDOUT_FILENO);
  print_table(phases, colour);
  for (const auto& n : after_notes) std::printf("  %s\n", n.c_str());
  int failed = 0;
  for (const auto& p : phases) {
    if (p.failures.empty()) continue;
    ++failed;
    std::printf("\n%sFAIL%s phase %s:\n", colour ? "\033[31m" : "", colour ? "\033[0m" : "", p.name.c_str());
    for (const auto& f : p.failures) std::printf("  %s\n", f.c_str());
  }
  if (!after.empty()) {
    ++failed;
    std::printf("\n%sFAIL%s after the phases:\n", colour ? "\033[31m" : "", colour ? "\033[0m" : "");
    for (std::size_t i = 0; i < std::min(after.size(), kShownFailures); ++i) std::printf("  %s\n", after[i].c_str());
    if (after.size() > kShownFailures) std::printf("  (%zu more like these)\n", after.size() - kShownFailures);
  }
  std::printf("\n%s\n", failed == 0 ? "load: PASS (no errors but the expected 409s, every connection answered, "
                                      "nothing lost, memory flat)"
                                    : "load: FAIL");
  return failed == 0 ? 0 : 1;
}

}  // namespace grader
