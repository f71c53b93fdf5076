// day_audit.h: what the day did to the money, counted per kind of damage. docs/teach/the-day.md "The day" (the audit).
//
//   DayDamage damage = audit_day(day, replay);
//   damage.count(Damage::Duplicate);          // duplicate transfers: the article's number
//   damage.intents(Damage::Lost);             // which intents, for `grader day show`
//
// Each kind is judged from what the clients were told and what the ledger holds, never from what the
// stage is expected to get wrong, so the same audit judges a learner's server. An intent can show more
// than one kind. The audit is a pure function of the log and the replay: tests feed it made-up replays.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "grader/day/day_log.h"
#include "grader/day/day_replay.h"

namespace grader {

enum class Damage {
  Duplicate,     // money moved more than once for one intent (counted per extra movement)
  Lost,          // a client was told success (2xx) for its request, but that request never moved money
  Mismatch,      // a changed request under an old key was answered success, and the change never happened
  CrossClient,   // a client got another client's response, or its own request did not run because of another's key
  Inconsistent,  // one request (same key, same body, same day) got two different final answers
  Misplaced,     // money moved that no request asked for, or a balance the ledger does not explain
  Conservation,  // balances plus payouts differ from the opening balances (counted in minor units)
  Expired,       // not damage: a retry after the key's retention ran again, as the published policy says
  Rekeyed,       // not the server's damage: one intent sent under several keys moved money once per key
};
inline constexpr std::array<Damage, 9> kAllDamage = {Damage::Duplicate,    Damage::Lost,      Damage::Mismatch,
                                                     Damage::CrossClient,  Damage::Inconsistent, Damage::Misplaced,
                                                     Damage::Conservation, Damage::Expired,   Damage::Rekeyed};

// The kinds that are not the server's damage (policy, or the client's doing): --expect-clean ignores them,
// and --expect judges them only when named.
inline constexpr bool is_server_damage(Damage d) { return d != Damage::Expired && d != Damage::Rekeyed; }

std::string_view column_name(Damage d);  // "dup", "lost", ... (the table's headings)
std::string_view describe(Damage d);     // one sentence

struct DayDamage {
  std::array<std::int64_t, kAllDamage.size()> counts{};
  std::array<std::vector<std::string>, kAllDamage.size()> intent_ids;  // which intents, in day order
  std::vector<std::string> notes;  // what a count of Misplaced or Conservation is made of

  std::int64_t count(Damage d) const { return counts[static_cast<std::size_t>(d)]; }
  const std::vector<std::string>& intents(Damage d) const { return intent_ids[static_cast<std::size_t>(d)]; }
  bool clean() const;  // no server damage (Expired is policy, Rekeyed the client's doing)
};

DayDamage audit_day(const DayLog& day, const DayReplay& replay);

}  // namespace grader
