// demo_scenarios.h: the scenarios of `grader demo`, each a story told on the stage (or wrong turn) that has
// the flaw and on the stage that fixes it, and the verdict of one telling. `grader demo` tells them in a
// terminal (grader/cli/demo.cc); the playground as guided tours in a browser (playground/session.cc).
// docs/teach/the-day.md "The day" (the show), "The playground".
//
//   for (const auto& s : demo_scenarios()) ...        // s.name, s.title, s.flawed, s.fixing, s.story
//   DemoVerdict v = demo_verdict(s.flawed, DemoRole::Flawed, outcome);   // "stage 1: ... (FLAW SHOWN)"
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "grader/demo/demo_stories.h"

namespace grader {

struct DemoStand {     // a server a story is told on
  std::string binary;  // a matrix subject (grader/base/stage_binaries.h:stage_servers)
  std::string label;   // how the narration names it
};

struct DemoScenario {
  const char* name;
  const char* title;
  DemoStand flawed;
  std::optional<DemoStand> fixing;  // none: the story shows a policy of the last stage, not a flaw
  const char* server_flags;         // appended to both servers' command lines
  Story story;
};

const std::vector<DemoScenario>& demo_scenarios();
const DemoScenario* find_demo_scenario(const std::string& name);  // nullptr: no such scenario

// Flawed: the stage with the flaw; Fixing: the stage that fixes it; Only: a scenario with no fixing stage
// (a policy of the last stage, shown as published).
enum class DemoRole { Flawed, Fixing, Only };

struct DemoVerdict {
  std::string line;  // "stage 1: the money moved 2 times for one intent (FLAW SHOWN)"
  bool as_hoped;     // the flaw showed on the flawed stage, or did not on the fixing one
};
DemoVerdict demo_verdict(const DemoStand& stand, DemoRole role, const Outcome& outcome);

// The check name of a telling's events in a history: "lost-response/flawed" (`grader demo --history`, the
// playground's export; the same name in both, so the two histories compare).
std::string demo_check_name(const DemoScenario& scenario, DemoRole role);

}  // namespace grader
