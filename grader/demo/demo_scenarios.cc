// demo_scenarios.cc: see demo_scenarios.h. docs/teach/the-day.md "The day" (the show).
#include "grader/demo/demo_scenarios.h"

#include <stdexcept>

#include "grader/base/stage_binaries.h"

namespace grader {
namespace {

// Retention long enough to see a replay, short enough to pass in one advance of the lab clock.
constexpr const char* kShortKeyTtl = "--key-ttl 60";

// A server of stages/stage_servers.json, named as its row says ("wrong turn 2a").
DemoStand stand(const std::string& binary) {
  const StageServer* server = find_stage_server(binary);
  if (!server) throw std::logic_error(binary + " is not a row of stages/stage_servers.json");
  return {server->binary, server->name};
}

}  // namespace

const std::vector<DemoScenario>& demo_scenarios() {
  static const std::vector<DemoScenario> table = {
      {"lost-response", "the gateway times out, the retry with the same key moves the money again",
       stand("stage1_naive"), stand("stage2_unique_key"), "", lost_response},
      {"changed-amount", "the teller corrects the amount under the same key and is told \"done\"",
       stand("stage2_unique_key"), stand("stage3_fingerprint"), "", changed_amount},
      {"simultaneous-retries", "16 copies at once through SELECT-then-INSERT: several execute",
       stand("wrong_select_then_insert"), stand("stage2_unique_key"), "", simultaneous_retries},
      {"crash-completed-first", "a crash after \"completed\" and before the money: success, and nothing paid",
       stand("wrong_completed_first"), stand("stage4_two_phase"), "", crash_completed_first},
      {"crash-money-first", "a crash after the money and before the key: the retry pays again",
       stand("wrong_money_first"), stand("stage4_two_phase"), "", crash_money_first},
      {"in-flight-done", "a repeat during the first request is told \"done\" before any money moved",
       stand("stage3_fingerprint"), stand("stage4_two_phase"), "", in_flight_done},
      {"recomputed-response", "a retry's answer is rebuilt: another balance, another time, one transfer",
       stand("stage4_two_phase"), stand("stage5_replay"), "", recomputed_response},
      {"global-key-leak", "bob uses alice's key string: his transfer is refused, her receipt is his",
       stand("stage5_replay"), stand("stage6_scope_ttl"), "", global_key_leak},
      {"retry-after-expiry", "a retry after the key's retention executes again, as the policy says",
       stand("stage6_scope_ttl"), std::nullopt, kShortKeyTtl, retry_after_expiry},
      {"sdk-gives-up", "an SDK gives up on a slow transfer, the app calls again under a new key: paid twice",
       stand("stage6_scope_ttl"), std::nullopt, "", sdk_gives_up},
  };
  return table;
}

DemoVerdict demo_verdict(const DemoStand& stand, DemoRole role, const Outcome& o) {
  const char* tag = role == DemoRole::Flawed ? (o.flaw_shown ? "FLAW SHOWN" : "the flaw did NOT show")
                    : role == DemoRole::Fixing ? (o.flaw_shown ? "NOT FIXED" : "FIXED")
                                               : (o.flaw_shown ? "AS PUBLISHED" : "NOT AS PUBLISHED");
  return {stand.label + ": " + o.what + " (" + tag + ")", (role == DemoRole::Fixing) != o.flaw_shown};
}

std::string demo_check_name(const DemoScenario& scenario, DemoRole role) {
  return std::string(scenario.name) + (role == DemoRole::Flawed ? "/flawed" : role == DemoRole::Fixing ? "/fixing" : "/only");
}

const DemoScenario* find_demo_scenario(const std::string& name) {
  for (const auto& s : demo_scenarios())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace grader
