// demo.cc: `grader demo`, the show: narrated failure scenarios an instructor runs live in class, each on
// the stage (or wrong turn) that has the flaw and then on the stage that fixes it. docs/teach/the-day.md "The day" (the show).
//
//   grader demo                               lists the scenarios
//   grader demo NAME [--step] [--bin-dir DIR] tells one; `grader demo all` tells every one in turn
//
// The stories are in demo_stories_*.cc, the narrator and the server of one telling in demo_scene.cc, the
// table of scenarios in demo_scenarios.cc; this file is the command line and the run. Exit status: 0 when every scenario run showed its flaw
// on the flawed stage and not on the fixing one, 1 otherwise, 2 for a usage error or a missing binary.
#include "grader/cli/demo.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fstream>

#include "grader/base/stage_binaries.h"
#include "grader/cli/command_line.h"
#include "grader/demo/demo_scenarios.h"
#include "grader/report/report.h"
#include "grader/wire/server_process.h"

namespace grader {
namespace {

const CommandSpec kDemoSpec{
    .name = "grader demo",
    .summary = "narrated failure scenarios, each told on the real stage server that has the flaw, then on\n"
               "the stage that fixes it (docs/teach/the-day.md \"The day\", the show).",
    .usage = {"", "NAME [--step] [--bin-dir DIR] [--history FILE]", "all [--step] [--bin-dir DIR] [--history FILE]"},
    .description = "Without NAME it lists the scenarios; with NAME it tells that one, on its flawed stage, then on its\n"
                   "fixing stage; with all, every scenario in turn.",
    .flags = {{"--step", "", "wait for Enter before each step (reads stdin; at its end, goes on)"},
              {"--bin-dir", "DIR", "where the stage binaries are (default: <build>/stages beside the grader)"},
              {"--history", "FILE",
               "every request and answer, in the grader's history format (JSON Lines); the\n"
               "check of each event is \"<scenario>/flawed\", \"<scenario>/fixing\" or \"<scenario>/only\""}},
    .closing = "Exit status: 0 when every scenario told showed its flaw and its fix, 1 when one did not, 2 for a usage\n"
               "error. Colour on a terminal only, never with NO_COLOR.",
    .positional = 1};

std::string stands_of(const DemoScenario& s) {
  return "flaw on " + s.flawed.label +
         (s.fixing ? ", fixed by " + s.fixing->label : " (the last stage: its published policy)");
}

void list_scenarios(std::ostream& out) {
  out << "grader demo: failure scenarios told on the real stage servers (docs/teach/the-day.md \"The day\").\n\n";
  for (const auto& s : demo_scenarios()) {
    std::string name = s.name;
    out << "  " << name << std::string(name.size() < 24 ? 24 - name.size() : 1, ' ') << s.title << "\n"
        << std::string(26, ' ') << stands_of(s) << "\n";
  }
  out << "\nRun one with `grader demo NAME [--step]`, all of them with `grader demo all`.\n";
}

// The path of every binary the scenarios need, or the exit status 2 with the missing one named.
std::optional<std::string> missing_binary(const std::vector<const DemoScenario*>& chosen, const std::string& bin_dir) {
  for (const auto* s : chosen)
    for (const auto& stand : {std::optional<DemoStand>(s->flawed), s->fixing})
      if (stand && !find_stage_binary(stand->binary, bin_dir))
        return (std::filesystem::path(bin_dir.empty() ? default_bin_dir() : bin_dir) / stand->binary).string();
  return std::nullopt;
}

// One telling on one server; prints its verdict line. Throws StartError or ApiError.
Outcome tell(const DemoScenario& s, const DemoStand& stand, DemoRole role, const Narration& n,
             const std::string& bin_dir, const Outcome* first_telling) {
  std::string command = stage_command(*find_stage_binary(stand.binary, bin_dir), s.server_flags);
  Narration told = n;
  told.check = demo_check_name(s, role);
  Outcome o;
  {
    Scene scene(told, stand.label, command);
    o = s.story(scene, first_telling);
  }  // the server stops, and the requests it was still running end, before the verdict
  DemoVerdict v = demo_verdict(stand, role, o);
  *n.out << "\n" << n.bold(v.as_hoped && role == DemoRole::Fixing ? n.green(v.line) : n.red(v.line)) << "\n";
  return o;
}

// Tells a scenario on both stands. Returns true when it showed what it is for.
bool run_scenario(const DemoScenario& s, const Narration& n, const std::string& bin_dir) {
  auto& out = *n.out;
  out << "\n" << n.bold("=== " + std::string(s.name) + ": " + s.title) << "\n" << stands_of(s) << "\n\n";
  try {
    Outcome first = tell(s, s.flawed, s.fixing ? DemoRole::Flawed : DemoRole::Only, n, bin_dir, nullptr);
    if (!s.fixing) return first.flaw_shown;
    out << "\n" << n.bold("--- the same story on " + std::string(s.fixing->label)) << "\n\n";
    Outcome second = tell(s, *s.fixing, DemoRole::Fixing, n, bin_dir, &first);
    return first.flaw_shown && !second.flaw_shown;
  } catch (const std::exception& e) {  // StartError, ApiError: the server did not behave as a server
    out.flush();
    std::cerr << "grader demo: " << s.name << ": " << e.what() << "\n";
    return false;
  }
}

}  // namespace

int run_demo(const std::vector<std::string>& args) {
  auto line = parse_command_line(kDemoSpec, args);
  if (auto* status = std::get_if<int>(&line)) return *status;
  const auto& cl = std::get<CommandLine>(line);
  const std::optional<std::string> name =
      cl.positional().empty() ? std::nullopt : std::optional<std::string>(cl.positional()[0]);
  const std::string bin_dir = cl.text("--bin-dir"), history_path = cl.text("--history");
  const bool step = cl.has("--step");
  if (!name) {
    list_scenarios(std::cout);
    return 0;
  }

  std::vector<const DemoScenario*> chosen;
  for (const auto& s : demo_scenarios())
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
  History history;
  std::ofstream history_file;
  if (!history_path.empty()) {
    history_file.open(history_path);
    if (!history_file) {
      std::cerr << "grader demo: cannot write " << history_path << "\n";
      return 2;
    }
    history.stream_to(&history_file);
  }
  Narration narration{&std::cout, use_colour(STDOUT_FILENO), step};
  if (!history_path.empty()) narration.history = &history;
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
