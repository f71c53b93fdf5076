// day.cc: `grader day`, the command line of the day of requests: generate, replay (and audit), show.
// docs/teach/the-day.md "The day". The parts: day_log.cc (the format), day_generate.cc, day_replay.cc, day_audit.cc.
#include "grader/cli/day.h"

#include <unistd.h>

#include <atomic>
#include <charconv>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "grader/base/stage_binaries.h"
#include "grader/cli/command_line.h"
#include "grader/cli/grade.h"
#include "grader/cli/matrix.h"
#include "grader/cli/options.h"
#include "grader/day/day_audit.h"
#include "grader/day/day_generate.h"
#include "grader/day/day_replay.h"
#include "grader/report/report.h"
#include "grader/report/report_html.h"

namespace grader {
namespace {

constexpr std::size_t kIntentsNamed = 5;  // per damage column in the report
constexpr int kParallelReplays = 2;       // servers replayed at once by --stage all (see replay())

const CommandSpec kDaySpec{
    .name = "grader day",
    .summary = "the day of requests (docs/teach/the-day.md \"The day\"; the log's grammar: logs/README.md).",
    .usage = {"generate [--seed S] [--intents N] [--out FILE]",
              "replay LOG --stage N|NAME|all [--bin-dir DIR] [options]",
              "replay LOG --server \"<command with {port} {db} {admin_token}>\" [options]",
              "replay LOG --url http://127.0.0.1:PORT[,http://127.0.0.1:PORT2...] --admin-token T [options]",
              "show LOG INTENT [--record FILE]"},
    .description = R"(generate   writes a deterministic day (default seed 1, 20000 intents) as JSON Lines, to stdout or FILE.
replay     starts the server (a stage by number, a wrong turn by name as in `grader matrix`, or `all`
           for every reference binary one after the other), sends every attempt of the day as its client
           did, and prints the damage the audit counts: one row per server.
show       prints one intent: its story, every send, and with --record what each send got and what the
           ledger holds for it.)",
    .flags = {{"--seed", "S", "generate: the day's seed (default 1)"},
              {"--intents", "N", "generate: how many intents (default 20000)"},
              {"--out", "FILE", "generate: write the day here instead of stdout"},
              {"--stage", "N|NAME|all", "replay: the reference binary (or all of them, one after the other)"},
              {"--bin-dir", "DIR", "replay: where the binaries are (default: <the grader's folder>/../stages)"},
              {"--server", "CMD", "replay: start this command"},
              {"--url", "URL[,URL...]", "replay: a running server, or several instances of one"},
              {"--admin-token", "T", "replay: the running server's admin token (with --url)"},
              {"--workers", "N", "replay: clients sending at once (default 64)"},
              {"--speed", "X",
               "replay: day time runs X times faster than real time between intents (default: about\n"
               "10000 intents a second, and at most 10000 times faster)"},
              {"--json", "FILE", "replay: the figures as JSON"},
              {"--html", "FILE", "replay: the damage table and a bar chart as one self-contained HTML page"},
              {"--record", "FILE",
               "replay: every send's answer and the ledger, for `grader day show` (with one server only);\n"
               "show: the record to read"},
              {"--expect-clean", "", "replay: exit 1 if the audit finds damage (the published expiry policy and a\n"
                                 "client's several keys for one intent are not the server's damage)"},
              {"--expect", "C=N,..",
               "replay: exit 1 unless each named column counts N (C>N: more than N) and every other\n"
               "damage column 0 (columns: dup lost mismatch cross inconsistent misplaced conserv expired rekeyed)"}},
    .closing = R"(A server the grader starts gets --lab-controls (Lab-Delay-Ms, Lab-Crash, POST /admin/clock are needed);
with --url, start it so yourself; crashes are then not sent, since the grader cannot restart it. Several
comma-separated URLs are instances of one server on one shared database: each request goes to the next.
Progress is shown on a terminal; colour never (the table is for reading and for copying).)",
    .positional = 3};

int usage_error(const std::string& why) { return usage_error(kDaySpec, why); }

// --- generate ---
int generate(CommandLine& a) {
  DayShape shape;
  a.number<std::uint64_t>("--seed", 0, UINT64_MAX, shape.seed);
  a.number<std::int64_t>("--intents", 1, 10'000'000, shape.intents);
  if (a.failed()) return usage_error(a.error());
  auto t0 = std::chrono::steady_clock::now();
  DayLog day = generate_day(shape);
  std::string out = a.text("--out");
  if (out.empty()) {
    write_day_log(std::cout, day);
  } else {
    std::ofstream file(out, std::ios::binary);
    write_day_log(file, day);
    if (!file) return std::cerr << "grader day: cannot write " << out << "\n", 1;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "grader day: seed %llu, %zu intents, %zu sends, %zu clients, %zu accounts%s%s in %.2fs\n",
               static_cast<unsigned long long>(shape.seed), day.intents.size(), day.send_count(), day.clients.size(),
               day.accounts.size(), out.empty() ? "" : " -> ", out.c_str(), s);
  return 0;
}

// --- replay ---
struct Row {
  std::string subject;
  DayReplay replay;
  DayDamage damage;
  std::string error;
};

void print_table(const DayLog& day, const std::string& log, const std::vector<Row>& rows) {
  std::printf("\nthe day: %s (%zu intents, %zu sends)%s\n", log.c_str(), day.intents.size(), day.send_count(),
              rows.size() > 1 ? "; two servers replayed at a time, so sends/s is each one's share of the machine" : "");
  std::printf("%-26s %8s", "server", "sends/s");
  for (Damage d : kAllDamage) std::printf(" %*s", static_cast<int>(std::max<std::size_t>(5, column_name(d).size())), std::string(column_name(d)).c_str());
  std::printf("\n");
  for (const auto& r : rows) {
    std::printf("%-26s", r.subject.c_str());
    if (!r.error.empty()) {
      std::printf(" replay failed: %s\n", r.error.c_str());
      continue;
    }
    std::printf(" %8.0f", r.replay.seconds > 0 ? r.replay.attempts.size() / r.replay.seconds : 0.0);
    for (Damage d : kAllDamage)
      std::printf(" %*lld", static_cast<int>(std::max<std::size_t>(5, column_name(d).size())),
                  static_cast<long long>(r.damage.count(d)));
    std::printf("\n");
  }
  std::printf("\ncolumns:\n");
  for (Damage d : kAllDamage) std::printf("  %-13s %s\n", std::string(column_name(d)).c_str(), std::string(describe(d)).c_str());
}

void print_details(const std::string& log, const Row& r, const std::string& record) {
  for (Damage d : kAllDamage) {
    const auto& ids = r.damage.intents(d);
    if (ids.empty()) continue;
    std::printf("  %-13s %zu intent%s, e.g.", std::string(column_name(d)).c_str(), ids.size(), ids.size() == 1 ? "" : "s");
    for (std::size_t k = 0; k < std::min(kIntentsNamed, ids.size()); ++k) std::printf(" %s", ids[k].c_str());
    std::printf("\n");
  }
  for (std::size_t k = 0; k < std::min<std::size_t>(r.damage.notes.size(), 5); ++k)
    std::printf("  note: %s\n", r.damage.notes[k].c_str());
  if (r.replay.crashes_skipped) std::printf("  note: crashes were not sent (the grader cannot restart a --url server)\n");
  for (Damage d : kAllDamage)
    if (!r.damage.intents(d).empty()) {
      std::printf("  see one: grader day show %s %s%s\n", log.c_str(), r.damage.intents(d).front().c_str(),
                  record.empty() ? " --record FILE (replay with --record FILE first)" : (" --record " + record).c_str());
      break;
    }
}

// A column's name without the marker of what is not server damage: "expired*" -> "expired".
std::string plain_name(Damage d) {
  std::string name(column_name(d));
  if (name.back() == '*') name.pop_back();
  return name;
}

nlohmann::json row_json(const Row& r) {
  nlohmann::json j = {{"server", r.subject}};
  if (!r.error.empty()) return j["error"] = r.error, j;
  j["sends"] = r.replay.attempts.size();
  j["seconds"] = r.replay.seconds;
  j["sends_per_second"] = r.replay.seconds > 0 ? r.replay.attempts.size() / r.replay.seconds : 0.0;
  j["restarts"] = r.replay.restarts;
  j["clean"] = r.damage.clean();
  for (Damage d : kAllDamage) {
    std::string name = plain_name(d);
    j["damage"][name] = r.damage.count(d);
    j["intents"][name] = r.damage.intents(d);
  }
  j["notes"] = r.damage.notes;
  return j;
}

void write_record(const std::string& path, const DayLog& day, const Row& r) {
  std::ofstream out(path, std::ios::binary);
  out << nlohmann::json{{"server", r.subject}, {"nonce", r.replay.nonce}}.dump() << "\n";
  for (const auto& a : r.replay.attempts) {
    nlohmann::json j = {{"intent", day.intents[a.intent].id}, {"send", a.send}, {"key", a.key}, {"client", a.client},
                        {"sent", a.body}, {"start_ms", a.start_ms}, {"end_ms", a.end_ms}};
    if (a.status) {
      j["status"] = *a.status;
      j["content_type"] = a.content_type;
      j["body"] = a.response_body;
      if (a.replayed) j["replayed"] = true;
    } else {
      j["error"] = a.error;
    }
    out << nlohmann::json{{"attempt", j}}.dump() << "\n";
  }
  for (const auto& e : r.replay.ledger) {
    nlohmann::json j = {{"id", e.id}, {"kind", e.kind}, {"from_account", e.from_account}, {"amount", e.amount},
                        {"currency", e.currency}, {"memo", e.memo}, {"created_at", e.created_at}};
    if (e.to_account) j["to_account"] = *e.to_account;
    else j["destination"] = e.destination;
    out << nlohmann::json{{"entry", j}}.dump() << "\n";
  }
  for (const auto& [name, id] : r.replay.account_id)
    out << nlohmann::json{{"account", name}, {"id", id}, {"balance", r.replay.balances.count(id) ? r.replay.balances.at(id) : 0}}.dump() << "\n";
  if (!out) std::cerr << "grader day: cannot write " << path << "\n";
}

Row replay_one(const DayLog& day, const std::string& subject, std::unique_ptr<Target> target, ReplayConfig config) {
  Row row{subject, {}, {}, {}};
  try {
    row.replay = replay_day(day, *target, config);
    row.damage = audit_day(day, row.replay);
  } catch (const std::exception& e) {
    row.error = e.what();
    std::string tail = target->stderr_tail();
    if (!tail.empty()) row.error += "\n" + tail;
  }
  target->stop();
  return row;
}

// Several servers (--stage all): replayed kParallelReplays at a time, each with its own server and clients.
// One replay leaves most of a 2-core machine idle (its clients wait on timeouts and on the server), so two
// at once take about half the time; the counts do not depend on it (stage 6's zeros by construction).
std::vector<Row> replay_servers(const DayLog& day, const std::vector<std::pair<std::string, std::string>>& servers,
                                ReplayConfig config) {
  std::vector<Row> rows(servers.size());
  std::atomic<std::size_t> next{0};
  std::mutex launch_mutex, print_mutex;  // one start at a time (free ports); whole lines on stderr
  if (servers.size() > 1) config.progress = false;  // several progress lines would overwrite each other
  auto replay_next = [&] {
    for (std::size_t n; (n = next.fetch_add(1)) < servers.size();) {
      const auto& [label, command] = servers[n];
      Row& row = rows[n];
      std::unique_ptr<Target> target;
      try {
        std::lock_guard lock(launch_mutex);
        target = Target::launch(command, facts_from_command(command));
      } catch (const StartError& e) {
        row = {label, {}, {}, std::string("did not start: ") + e.what()};
        continue;
      }
      row = replay_one(day, label, std::move(target), config);
      std::lock_guard lock(print_mutex);
      if (row.error.empty())
        std::fprintf(stderr, "  %-26s %zu sends in %.1fs, %d restarts, %s\n", label.c_str(),
                     row.replay.attempts.size(), row.replay.seconds, row.replay.restarts,
                     row.damage.clean() ? "no damage" : "damage");
    }
  };
  std::vector<std::thread> replays;
  for (int k = 0; k < std::min<int>(kParallelReplays, static_cast<int>(servers.size())); ++k)
    replays.emplace_back(replay_next);
  for (auto& t : replays) t.join();
  return rows;
}

// The rows as the HTML report shows them.
DayReport day_report(const DayLog& day, const std::string& log, const std::vector<Row>& rows) {
  DayReport report{log, day.intents.size(), day.send_count(), {}};
  for (const auto& r : rows)
    report.rows.push_back({r.subject, r.replay.attempts.size(), r.replay.seconds, r.damage, r.error});
  return report;
}

int replay(CommandLine& a) {
  if (a.positional().size() != 2) return usage_error("replay takes one LOG");
  const std::string log = a.positional()[1];
  const int modes = a.has("--stage") + a.has("--server") + a.has("--url");
  if (modes != 1) return usage_error("replay takes one of --stage, --server and --url");
  ReplayConfig config;
  config.progress = isatty(STDERR_FILENO) != 0;
  a.number("--workers", 1, 512, config.workers);
  std::int64_t speed = 0;
  a.number<std::int64_t>("--speed", 1, 1'000'000'000, speed);
  if (a.failed()) return usage_error(a.error());
  if (speed > 0) config.speed = static_cast<double>(speed);
  // --expect: column -> (count, at least instead of exactly)
  std::map<std::string, std::pair<std::int64_t, bool>> expect;
  if (a.has("--expect")) {
    std::string list = a.text("--expect") + ",";
    for (std::size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1) {
      std::string item = list.substr(at, comma - at);
      auto op = item.find_first_of("=>");
      std::optional<std::int64_t> n;
      if (op != std::string::npos) n = parse_number<std::int64_t>(item.substr(op + 1), 0, INT64_MAX - 1);
      bool known = false;
      for (Damage d : kAllDamage) known = known || (op != std::string::npos && plain_name(d) == item.substr(0, op));
      if (!n || !known) return usage_error("--expect takes COLUMN=N or COLUMN>N, comma-separated, e.g. dup=1,lost=0");
      expect[item.substr(0, op)] = {item[op] == '>' ? *n + 1 : *n, item[op] == '>'};
    }
  }
  DayLog day;
  try {
    day = read_day_log(log);
  } catch (const DayLogError& e) {
    std::cerr << "grader day: " << e.what() << "\n";
    return 2;
  }
  const std::string bin_dir = a.text("--bin-dir");
  std::vector<std::pair<std::string, std::string>> servers;  // label, command
  if (a.has("--stage")) {
    std::vector<std::string> names;
    if (a.text("--stage") == "all")
      for (const auto& s : stage_servers()) names.push_back(s.binary);
    else
      names.push_back(a.text("--stage"));
    for (const auto& name : names) {
      auto path = find_stage_binary(name, bin_dir);
      if (!path) {
        std::cerr << "grader day: no built server \"" << name << "\" in "
                  << (bin_dir.empty() ? default_bin_dir() : bin_dir) << " (run make build; stages are 1-6, "
                  << "wrong turns are named as in grader matrix)\n";
        return 2;
      }
      servers.emplace_back(std::filesystem::path(*path).filename().string(), stage_command(*path));
    }
  } else if (a.has("--server")) {
    servers.emplace_back(a.text("--server"), a.text("--server"));
  }
  const std::string record = a.text("--record");
  if (!record.empty() && servers.size() > 1) return usage_error("--record goes with one server");

  kill_servers_on_signal();
  std::vector<Row> rows;
  if (a.has("--url")) {
    if (!a.has("--admin-token")) return usage_error("--url needs --admin-token");
    const std::string& url = a.text("--url");
    auto addresses = parse_urls(url);
    if (auto* error = std::get_if<std::string>(&addresses)) return usage_error(*error);
    rows.push_back(replay_one(
        day, url, Target::attach(std::get<std::vector<Address>>(addresses), a.text("--admin-token"), {}),
        config));
  }
  auto replayed = replay_servers(day, servers, config);
  rows.insert(rows.end(), replayed.begin(), replayed.end());
  print_table(day, log, rows);
  if (rows.size() == 1 && rows[0].error.empty()) {
    std::printf("\n%s:\n", rows[0].subject.c_str());
    print_details(log, rows[0], record);
  } else if (rows.size() > 1) {
    std::printf("\nwhich intents, and one of them in full: grader day replay %s --stage N --record FILE\n", log.c_str());
  }
  if (!record.empty() && rows.size() == 1 && rows[0].error.empty()) write_record(record, day, rows[0]);
  if (a.has("--json")) {
    nlohmann::json j = {{"log", log}, {"intents", day.intents.size()}, {"sends", day.send_count()}};
    for (const auto& r : rows) j["servers"].push_back(row_json(r));
    std::ofstream out(a.text("--json"), std::ios::binary);
    out << j.dump(2) << "\n";
    if (!out) return std::cerr << "grader day: cannot write " << a.text("--json") << "\n", 1;
  }
  bool failed = false;
  if (a.has("--html")) {
    HtmlReport report{.title = "grader day replay " + log, .day = day_report(day, log, rows)};
    failed = !write_report_html(a.text("--html"), report);
  }
  for (const auto& r : rows) {
    failed = failed || !r.error.empty() || (a.has("--expect-clean") && !r.damage.clean());
    if (!r.error.empty() || !a.has("--expect")) continue;
    for (Damage d : kAllDamage) {
      std::string name = plain_name(d);
      if (!expect.count(name) && !is_server_damage(d)) continue;  // policy or client-made: judged only when named
      auto [wanted, at_least] = expect.count(name) ? expect[name] : std::pair<std::int64_t, bool>{0, false};
      if (at_least ? r.damage.count(d) >= wanted : r.damage.count(d) == wanted) continue;
      std::printf("EXPECTATION FAILED: %s: %s is %lld, expected %s%lld\n", r.subject.c_str(), name.c_str(),
                  static_cast<long long>(r.damage.count(d)), at_least ? "at least " : "", static_cast<long long>(wanted));
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

// --- show ---
std::string send_text(const DaySend& s) {
  std::string t = s.at_ms ? "at " + clock_text(*s.at_ms) : s.after_ms ? std::to_string(*s.after_ms) + " ms after the previous ended"
                                                                       : std::to_string(*s.during_ms) + " ms after the previous was sent";
  if (s.next_day) t = "next day, " + t;
  if (s.key) t += ", key " + *s.key;
  if (s.amount) t += ", amount changed to " + std::to_string(*s.amount);
  if (s.as_client) t += ", as " + *s.as_client;
  if (s.reordered) t += ", body re-serialized";
  if (s.delay_ms) t += ", server works " + std::to_string(s.delay_ms) + " ms";
  if (s.timeout_ms) t += ", client gives up after " + std::to_string(*s.timeout_ms) + " ms";
  if (s.drop) t += ", connection cut after sending";
  if (!s.crash.empty()) t += ", server crashes " + s.crash;
  if (s.clock_ms) t += ", " + std::to_string(s.clock_ms) + " ms pass on the lab clock first";
  return t;
}

int show(CommandLine& a) {
  if (a.positional().size() != 3) return usage_error("show takes LOG and INTENT");
  DayLog day;
  try {
    day = read_day_log(a.positional()[1]);
  } catch (const DayLogError& e) {
    std::cerr << "grader day: " << e.what() << "\n";
    return 2;
  }
  const DayIntent* intent = day.intent(a.positional()[2]);
  if (!intent) return std::cerr << "grader day: no intent " << a.positional()[2] << " in " << a.positional()[1] << "\n", 2;
  std::printf("%s  story %s, client %s, key %s\n", intent->id.c_str(), intent->story.c_str(), intent->client.c_str(),
              intent->key.c_str());
  if (intent->kind == "transfer")
    std::printf("  transfer %lld %s from %s to %s", static_cast<long long>(intent->amount), intent->currency.c_str(),
                intent->from.c_str(), intent->to.c_str());
  else
    std::printf("  payout %lld %s from %s to %s", static_cast<long long>(intent->amount), intent->currency.c_str(),
                intent->from.c_str(), intent->destination.c_str());
  std::printf("%s\n", intent->body_of.empty() ? "" : (" (the body of " + intent->body_of + ")").c_str());
  std::map<std::size_t, nlohmann::json> answers;
  std::vector<nlohmann::json> entries;
  std::string tag_suffix = "." + (intent->body_of.empty() ? intent->id : intent->body_of);
  if (a.has("--record")) {
    std::ifstream in(a.text("--record"));
    if (!in) return std::cerr << "grader day: cannot read " << a.text("--record") << "\n", 2;
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;
      if (j.contains("attempt") && j["attempt"].value("intent", "") == intent->id)
        answers[j["attempt"].value("send", 0)] = j["attempt"];
      if (j.contains("entry")) {
        std::string memo = j["entry"].value("memo", "");
        if (memo.size() >= tag_suffix.size() && memo.compare(memo.size() - tag_suffix.size(), tag_suffix.size(), tag_suffix) == 0)
          entries.push_back(j["entry"]);
      }
    }
  }
  for (std::size_t k = 0; k < intent->sends.size(); ++k) {
    std::printf("  send %zu: %s\n", k + 1, send_text(intent->sends[k]).c_str());
    if (!answers.count(k)) continue;
    const auto& ans = answers[k];
    if (ans.contains("status"))
      std::printf("    < %d%s %s\n", ans["status"].get<int>(), ans.value("replayed", false) ? " (replayed)" : "",
                  ans.value("body", "").substr(0, 300).c_str());
    else
      std::printf("    < no answer: %s\n", ans.value("error", "").c_str());
  }
  if (a.has("--record")) {
    std::printf("  ledger: %zu entr%s\n", entries.size(), entries.size() == 1 ? "y" : "ies");
    for (const auto& e : entries) std::printf("    %s\n", e.dump().c_str());
  }
  return 0;
}

}  // namespace

DayReport replay_on_every_stage(const DayLog& day, const std::string& log, const std::string& bin_dir) {
  std::vector<std::pair<std::string, std::string>> servers;  // label, command
  for (const auto& subject : stage_servers())
    if (auto path = find_stage_binary(subject.binary, bin_dir)) servers.emplace_back(subject.binary, stage_command(*path));
  auto rows = replay_servers(day, servers, ReplayConfig{});
  print_table(day, log, rows);
  return day_report(day, log, rows);
}

int run_day(const std::vector<std::string>& args) {
  if (args.empty()) return std::cout << help_text(kDaySpec), 2;
  auto line = parse_command_line(kDaySpec, args);
  if (auto* status = std::get_if<int>(&line)) return *status;
  auto& a = std::get<CommandLine>(line);
  const std::string& verb = a.positional().empty() ? "" : a.positional()[0];
  if (verb == "generate") return a.positional().size() == 1 ? generate(a) : usage_error("generate takes no LOG");
  if (verb == "replay") return replay(a);
  if (verb == "show") return show(a);
  return usage_error("the verbs are generate, replay and show");
}

}  // namespace grader
