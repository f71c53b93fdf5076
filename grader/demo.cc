// demo.cc: `grader demo`, the show: narrated failure scenarios an instructor runs live in class, each on
// the stage (or wrong turn) that has the flaw and then on the stage that fixes it. LAB.md "The day" (the show).
//
//   grader demo                               lists the scenarios
//   grader demo NAME [--step] [--bin-dir DIR] tells one; `grader demo all` tells every one in turn
//
// The stories are in demo_stories_*.cc, the narrator and the server of one telling in demo_scene.cc; this
// file holds the table of scenarios and the verdicts. Exit status: 0 when every scenario run showed its flaw
// on the flawed stage and not on the fixing one, 1 otherwise, 2 for a usage error or a missing binary.
#include "grader/demo.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "grader/demo_stories.h"
#include "grader/report.h"
#include "grader/server_process.h"
#include "grader/stage_binaries.h"

namespace grader {
namespace {

struct Stand {  // a server the story is told on
  const char* binary;  // a matrix subject (grader/matrix.cc:matrix_subjects)
  const char* label;   // how the narration names it
};

struct Scenario {
  const char* name;
  const char* title;
  Stand flawed;
  std::optional<Stand> fixing;  // none: the story shows a policy of the last stage, not a flaw
  const char* server_flags;     // appended to both servers' command lines
  Story story;
};

// Retention long enough to see a replay, short enough to pass in one advance of the lab clock.
constexpr const char* kShortKeyTtl = "--key-ttl 60";

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> table = {
      {"lost-response", "the gateway times out, the retry with the same key moves the money again",
       {"stage1_naive", "stage 1"}, Stand{"stage2_unique_key", "stage 2"}, "", lost_response},
      {"changed-amount", "the teller corrects the amount under the same key and is told \"done\"",
       {"stage2_unique_key", "stage 2"}, Stand{"stage3_fingerprint", "stage 3"}, "", changed_amount},
      {"simultaneous-retries", "16 copies at once through SELECT-then-INSERT: several execute",
       {"wrong_select_then_insert", "wrong turn 2a"}, Stand{"stage2_unique_key", "stage 2"}, "",
       simultaneous_retries},
      {"crash-completed-first", "a crash after \"completed\" and before the money: success, and nothing paid",
       {"wrong_completed_first", "wrong turn 4a"}, Stand{"stage4_two_phase", "stage 4"}, "", crash_completed_first},
      {"crash-money-first", "a crash after the money and before the key: the retry pays again",
       {"wrong_money_first", "wrong turn 4b"}, Stand{"stage4_two_phase", "stage 4"}, "", crash_money_first},
      {"in-flight-done", "a repeat during the first request is told \"done\" before any money moved",
       {"stage3_fingerprint", "stage 3"}, Stand{"stage4_two_phase", "stage 4"}, "", in_flight_done},
      {"recomputed-response", "a retry's answer is rebuilt: another balance, another time, one transfer",
       {"stage4_two_phase", "stage 4"}, Stand{"stage5_replay", "stage 5"}, "", recomputed_response},
      {"global-key-leak", "bob uses alice's key string: his transfer is refused, her receipt is his",
       {"stage5_replay", "stage 5"}, Stand{"stage6_scope_ttl", "stage 6"}, "", global_key_leak},
      {"retry-after-expiry", "a retry after the key's retention executes again, as the policy says",
       {"stage6_scope_ttl", "stage 6"}, std::nullopt, kShortKeyTtl, retry_after_expiry},
  };
  return table;
}

std::string usage() {
  return "usage: grader demo                                list the scenarios\n"
         "       grader demo NAME [--step] [--bin-dir DIR] tell one, on its flawed stage, then its fixing stage\n"
         "       grader demo all [--step] [--bin-dir DIR]  tell every scenario in turn\n"
         "  --step          wait for Enter before each step (reads stdin; at its end, goes on)\n"
         "  --bin-dir DIR   where the stage binaries are (default: <build>/stages beside the grader)\n"
         "Colour on a terminal only, never with NO_COLOR. LAB.md \"The day\" (the show).\n";
}

std::string stands_of(const Scenario& s) {
  return "flaw on " + std::string(s.flawed.label) +
         (s.fixing ? ", fixed by " + std::string(s.fixing->label) : " (the last stage: its published policy)");
}

void list_scenarios(std::ostream& out) {
  out << "grader demo: failure scenarios told on the real stage servers (LAB.md \"The day\").\n\n";
  for (const auto& s : scenarios()) {
    std::string name = s.name;
    out << "  " << name << std::string(name.size() < 24 ? 24 - name.size() : 1, ' ') << s.title << "\n"
        << std::string(26, ' ') << stands_of(s) << "\n";
  }
  out << "\nRun one with `grader demo NAME [--step]`, all of them with `grader demo all`.\n";
}

// The path of every binary the scenarios need, or the exit status 2 with the missing one named.
std::optional<std::string> missing_binary(const std::vector<const Scenario*>& chosen, const std::string& bin_dir) {
  for (const auto* s : chosen)
    for (const auto& stand : {std::optional<Stand>(s->flawed), s->fixing})
      if (stand && !find_stage_binary(stand->binary, bin_dir))
        return (std::filesystem::path(bin_dir.empty() ? default_bin_dir() : bin_dir) / stand->binary).string();
  return std::nullopt;
}

enum class Role { Flawed, Fixing, Only };

// One telling on one server; prints its verdict line. Throws StartError or ApiError.
Outcome tell(const Scenario& s, const Stand& stand, Role role, const Narration& n, const std::string& bin_dir,
             const Outcome* first_telling) {
  std::string command = stage_command(*find_stage_binary(stand.binary, bin_dir), s.server_flags);
  Scene scene(n, stand.label, command);
  Outcome o = s.story(scene, first_telling);
  const char* tag = role == Role::Flawed ? (o.flaw_shown ? "FLAW SHOWN" : "the flaw did NOT show")
                    : role == Role::Fixing ? (o.flaw_shown ? "NOT FIXED" : "FIXED")
                                           : (o.flaw_shown ? "AS PUBLISHED" : "NOT AS PUBLISHED");
  std::string line = std::string(stand.label) + ": " + o.what + " (" + tag + ")";
  bool as_hoped = (role == Role::Fixing) != o.flaw_shown;
  *n.out << "\n" << n.bold(role == Role::Fixing && as_hoped ? n.green(line) : n.red(line)) << "\n";
  return o;
}

// Tells a scenario on both stands. Returns true when it showed what it is for.
bool run_scenario(const Scenario& s, const Narration& n, const std::string& bin_dir) {
  auto& out = *n.out;
  out << "\n" << n.bold("=== " + std::string(s.name) + ": " + s.title) << "\n" << stands_of(s) << "\n\n";
  try {
    Outcome first = tell(s, s.flawed, s.fixing ? Role::Flawed : Role::Only, n, bin_dir, nullptr);
    if (!s.fixing) return first.flaw_shown;
    out << "\n" << n.bold("--- the same story on " + std::string(s.fixing->label)) << "\n\n";
    Outcome second = tell(s, *s.fixing, Role::Fixing, n, bin_dir, &first);
    return first.flaw_shown && !second.flaw_shown;
  } catch (const std::exception& e) {  // StartError, ApiError: the server did not behave as a server
    out.flush();
    std::cerr << "grader demo: " << s.name << ": " << e.what() << "\n";
    return false;
  }
}

}  // namespace

int run_demo(const std::vector<std::string>& args) {
  std::optional<std::string> name;
  std::string bin_dir;
  bool step = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << usage();
      return 0;
    } else if (a == "--step") {
      step = true;
    } else if (a == "--bin-dir" && i + 1 < args.size()) {
      bin_dir = args[++i];
    } else if (!a.starts_with("-") && !name) {
      name = a;
    } else {
      std::cerr << "grader demo: unexpected argument '" << a << "'\n" << usage();
      return 2;
    }
  }
  if (!name) {
    list_scenarios(std::cout);
    return 0;
  }

  std::vector<const Scenario*> chosen;
  for (const auto& s : scenarios())
    if (*name == "all" || *name == s.name) chosen.push_back(&s);
  if (chosen.empty()) {
    std::cerr << "grader demo: no scenario '" << *name << "'; `grader demo` lists them\n";
    return 2;
  }
  if (auto missing = missing_binary(chosen, bin_dir)) {
    std::cerr << "grader demo: " << *missing << " is not built; run `make build` (or pass --bin-dir)\n";
    return 2;
  }

  kill_servers_on_signal();
  const Narration narration{&std::cout, use_colour(STDOUT_FILENO), step};
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> failed;
  for (const auto* s : chosen)
    if (!run_scenario(*s, narration, bin_dir)) failed.push_back(s->name);

  if (chosen.size() > 1) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "\n" << narration.bold("grader demo all: " + std::to_string(chosen.size() - failed.size()) + " of " +
                                        std::to_string(chosen.size()) + " scenarios showed their flaw and its fix")
              << " (" << static_cast<int>(seconds + 0.5) << " s)\n";
  }
  for (const auto& f : failed)
    std::cout << narration.red("grader demo: " + f + " did not show its flaw on its stage and not on the fixing stage")
              << "\n";
  return failed.empty() ? 0 : 1;
}

}  // namespace grader
