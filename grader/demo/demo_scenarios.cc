// demo_scenarios.cc: see demo_scenarios.h. LAB.md "The day" (the show).
#include "grader/demo/demo_scenarios.h"

namespace grader {
namespace {

// Retention long enough to see a replay, short enough to pass in one advance of the lab clock.
constexpr const char* kShortKeyTtl = "--key-ttl 60";

}  // namespace

const std::vector<DemoScenario>& demo_scenarios() {
  static const std::vector<DemoScenario> table = {
      {"lost-response", "the gateway times out, the retry with the same key moves the money again",
       {"stage1_naive", "stage 1"}, DemoStand{"stage2_unique_key", "stage 2"}, "", lost_response},
      {"changed-amount", "the teller corrects the amount under the same key and is told \"done\"",
       {"stage2_unique_key", "stage 2"}, DemoStand{"stage3_fingerprint", "stage 3"}, "", changed_amount},
      {"simultaneous-retries", "16 copies at once through SELECT-then-INSERT: several execute",
       {"wrong_select_then_insert", "wrong turn 2a"}, DemoStand{"stage2_unique_key", "stage 2"}, "",
       simultaneous_retries},
      {"crash-completed-first", "a crash after \"completed\" and before the money: success, and nothing paid",
       {"wrong_completed_first", "wrong turn 4a"}, DemoStand{"stage4_two_phase", "stage 4"}, "", crash_completed_first},
      {"crash-money-first", "a crash after the money and before the key: the retry pays again",
       {"wrong_money_first", "wrong turn 4b"}, DemoStand{"stage4_two_phase", "stage 4"}, "", crash_money_first},
      {"in-flight-done", "a repeat during the first request is told \"done\" before any money moved",
       {"stage3_fingerprint", "stage 3"}, DemoStand{"stage4_two_phase", "stage 4"}, "", in_flight_done},
      {"recomputed-response", "a retry's answer is rebuilt: another balance, another time, one transfer",
       {"stage4_two_phase", "stage 4"}, DemoStand{"stage5_replay", "stage 5"}, "", recomputed_response},
      {"global-key-leak", "bob uses alice's key string: his transfer is refused, her receipt is his",
       {"stage5_replay", "stage 5"}, DemoStand{"stage6_scope_ttl", "stage 6"}, "", global_key_leak},
      {"retry-after-expiry", "a retry after the key's retention executes again, as the policy says",
       {"stage6_scope_ttl", "stage 6"}, std::nullopt, kShortKeyTtl, retry_after_expiry},
  };
  return table;
}

DemoVerdict demo_verdict(const DemoStand& stand, DemoRole role, const Outcome& o) {
  const char* tag = role == DemoRole::Flawed ? (o.flaw_shown ? "FLAW SHOWN" : "the flaw did NOT show")
                    : role == DemoRole::Fixing ? (o.flaw_shown ? "NOT FIXED" : "FIXED")
                                               : (o.flaw_shown ? "AS PUBLISHED" : "NOT AS PUBLISHED");
  return {std::string(stand.label) + ": " + o.what + " (" + tag + ")", (role == DemoRole::Fixing) != o.flaw_shown};
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
