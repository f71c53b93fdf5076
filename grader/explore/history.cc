// history.cc: the generator of random histories and their words (history.h).
#include "grader/explore/history.h"

#include <algorithm>

#include "grader/base/rng.h"

namespace grader::explore {

namespace {

constexpr const char* kAccountNames[] = {"a1", "a2", "b1"};
// Past a deadline by this much: the model knows the lab clock only to within its slack (grader/model/settings.h
// clock_slack_ms), so a move just past the lease could fall either way.
constexpr std::int64_t kPastDeadlineMs = 5'000;

// The place of an account of `client`, and another account to send to.
int account_of(Rng& rng, int client) {
  if (client == 1) return 2;
  return rng.between(0, 3) == 0 ? 1 : 0;  // a2 starts empty: mostly a1, sometimes an overdraft
}
int other_account(Rng& rng, int from) {
  int to = static_cast<int>(rng.between(0, kAccountCount - 2));
  return to >= from ? to + 1 : to;
}

Intent fresh_intent(Rng& rng, int& next_key) {
  Intent in;
  in.client = rng.between(0, 3) == 0 ? 1 : 0;
  in.payout = rng.between(0, 3) == 0;
  in.key = "k" + std::to_string(next_key++);
  in.from = account_of(rng, in.client);
  if (rng.between(0, 9) == 0) in.from = in.client == 0 ? 2 : 0;  // another client's account: 404
  in.to = other_account(rng, in.from);
  in.amount = rng.between(1, 40) * 100;  // whole hundreds: a respelled body writes 1500 as 15e2
  return in;
}

// What a step's request is to the latest earlier request with the same key string.
enum class Relation { Fresh, Same, Respelled, OtherBody, OtherClient, OtherEndpoint };
struct Earlier {
  Relation relation = Relation::Fresh;
  std::size_t step = 0;
};

bool has_intent(const Step& s) {
  return s.kind == StepKind::Send || s.kind == StepKind::InFlight || s.kind == StepKind::Crash || s.kind == StepKind::Busy;
}

Earlier earlier_use(const History& h, std::size_t i) {
  const Intent& now = h[i].intent;
  for (std::size_t j = i; j-- > 0;) {
    if (!has_intent(h[j]) || h[j].intent.key != now.key) continue;
    const Intent& then = h[j].intent;
    Relation r = Relation::Same;
    if (then.client != now.client) r = Relation::OtherClient;
    else if (then.payout != now.payout) r = Relation::OtherEndpoint;
    else if (then.from != now.from || then.to != now.to || then.amount != now.amount) r = Relation::OtherBody;
    else if (then.respelled != now.respelled) r = Relation::Respelled;
    return {r, j};
  }
  return {};
}

int stage_of(Relation r) {
  switch (r) {
    case Relation::Fresh: return 1;
    case Relation::Same: return 2;  // the key table (stage 2)
    case Relation::Respelled:
    case Relation::OtherBody: return 3;  // the canonical fingerprint (stage 3)
    case Relation::OtherClient:
    case Relation::OtherEndpoint: return 6;  // the key's scope (stage 6)
  }
  return 1;
}

std::string request_words(const Intent& in) {
  std::string out = std::string(in.payout ? "POST /payouts" : "POST /transfers") + " as " + kClientNames[in.client] +
                    ", key " + in.key + ": " + std::to_string(in.amount) + " USD " + kAccountNames[in.from] + " -> " +
                    (in.payout ? "outside the bank" : kAccountNames[in.to]);
  return in.respelled ? out + " (JSON respelled)" : out;
}

}  // namespace

History generate(std::uint64_t seed, int stage, int length, std::int64_t lease_ms, std::int64_t key_ttl_ms) {
  Rng rng = Rng::for_check(seed, "explore.stage" + std::to_string(stage));
  History h;
  std::vector<Intent> sent;
  int next_key = 1;
  // The kinds of step and their weights; a kind is drawn only at the stages that speak of it.
  enum Choice { Fresh, Balance, Crash, Busy, Repeat, InFlight, Changed, Respelled, Clock, Scope };
  struct Weighted {
    Choice choice;
    int stage, weight;
    bool needs_earlier;
  };
  constexpr Weighted kChoices[] = {{Fresh, 1, 4, false},    {Balance, 1, 1, false},  {Crash, 1, 1, false},
                                   {Busy, 1, 1, false},     {Repeat, 2, 3, true},    {InFlight, 2, 1, false},
                                   {Changed, 3, 1, true},   {Respelled, 3, 1, true}, {Clock, 4, 1, false},
                                   {Scope, 6, 1, true}};
  while (static_cast<int>(h.size()) < length) {
    int total = 0;
    for (const Weighted& w : kChoices)
      if (w.stage <= stage && (!w.needs_earlier || !sent.empty())) total += w.weight;
    std::int64_t pick = rng.between(1, total);
    Choice choice = Fresh;
    for (const Weighted& w : kChoices) {
      if (w.stage > stage || (w.needs_earlier && sent.empty())) continue;
      if ((pick -= w.weight) <= 0) { choice = w.choice; break; }
    }
    Step s;
    switch (choice) {
      case Fresh:
        s.intent = fresh_intent(rng, next_key);
        break;
      case Balance:
        s.kind = StepKind::Balance;
        s.account = static_cast<int>(rng.between(0, kAccountCount - 1));
        s.asker = rng.between(0, 3) == 0 ? 1 - kAccounts[s.account].client : kAccounts[s.account].client;
        break;
      case Crash: {
        s.kind = StepKind::Crash;
        s.intent = fresh_intent(rng, next_key);
        std::vector<std::string> points{"before-money", "after-money"};
        if (stage >= 2) points.insert(points.end(), {"after-commit-1", "after-commit-2"});
        s.crash_point = points[static_cast<std::size_t>(rng.between(0, static_cast<std::int64_t>(points.size()) - 1))];
        break;
      }
      case Busy:
        s.kind = StepKind::Busy;
        s.intent = fresh_intent(rng, next_key);
        break;
      case Repeat:
        s.intent = sent[static_cast<std::size_t>(rng.between(0, static_cast<std::int64_t>(sent.size()) - 1))];
        break;
      case InFlight:
        s.kind = StepKind::InFlight;
        s.intent = fresh_intent(rng, next_key);
        s.takeover = stage >= 4 && rng.between(0, 2) == 0;
        break;
      case Changed:
        s.intent = sent[static_cast<std::size_t>(rng.between(0, static_cast<std::int64_t>(sent.size()) - 1))];
        s.intent.amount += rng.between(1, 5) * 100;
        break;
      case Respelled:
        s.intent = sent[static_cast<std::size_t>(rng.between(0, static_cast<std::int64_t>(sent.size()) - 1))];
        s.intent.respelled = !s.intent.respelled;
        break;
      case Clock:
        s.kind = StepKind::Clock;
        s.advance_ms = (stage >= 6 && rng.between(0, 2) == 0 ? key_ttl_ms : lease_ms) + kPastDeadlineMs;
        break;
      case Scope:
        s.intent = sent[static_cast<std::size_t>(rng.between(0, static_cast<std::int64_t>(sent.size()) - 1))];
        if (rng.between(0, 1) == 0) {
          s.intent.payout = !s.intent.payout;
        } else {
          s.intent.client = 1 - s.intent.client;
          s.intent.from = account_of(rng, s.intent.client);
          s.intent.to = other_account(rng, s.intent.from);
        }
        break;
    }
    if (has_intent(s)) sent.push_back(s.intent);
    h.push_back(s);
    // A client whose request got no answer (or a 503) sends it again: most crashes and busy answers are
    // followed by their retry.
    const bool unknown_outcome = s.kind == StepKind::Crash || s.kind == StepKind::Busy;
    if (unknown_outcome && stage >= 2 && static_cast<int>(h.size()) < length && rng.between(0, 2) != 0) {
      // From stage 4 a crashed claim holds its key until its lease runs out: half the retries wait it out on
      // the lab clock, so the retry must take the key over (the crash proves the claim was made before).
      if (s.kind == StepKind::Crash && stage >= 4 && static_cast<int>(h.size()) + 1 < length && rng.between(0, 1) == 0) {
        Step wait;
        wait.kind = StepKind::Clock;
        wait.advance_ms = lease_ms + kPastDeadlineMs;
        h.push_back(wait);
      }
      Step retry;
      retry.intent = s.intent;
      h.push_back(retry);
    }
  }
  return h;
}

int stage_needed(const History& h, std::size_t i) {
  const Step& s = h[i];
  int needed = has_intent(s) ? stage_of(earlier_use(h, i).relation) : 1;
  switch (s.kind) {
    case StepKind::Send:
    case StepKind::Busy:
    case StepKind::Balance: break;
    case StepKind::InFlight: needed = std::max(needed, s.takeover ? 4 : 2); break;
    case StepKind::Crash:
      if (s.crash_point.starts_with("after-commit-")) needed = std::max(needed, 2);
      break;
    case StepKind::Clock: needed = 4; break;
  }
  return needed;
}

std::string describe_setup() {
  std::string text = std::string("clients ") + kClientNames[0] + " and " + kClientNames[1] + "; accounts";
  for (int client = 0; client < 2; ++client) {
    std::string mine;
    int count = 0;
    for (int a = 0; a < kAccountCount; ++a) {
      if (kAccounts[a].client != client) continue;
      mine += std::string(count++ ? " and " : " ") + kAccountNames[a] + " (" + std::to_string(kAccounts[a].balance) + " USD)";
    }
    text += (client ? "," : "") + mine + " of " + kClientNames[client];
  }
  return text;
}

std::string describe(const History& h, std::size_t i) {
  const Step& s = h[i];
  std::string out;
  switch (s.kind) {
    case StepKind::Send: out = request_words(s.intent); break;
    case StepKind::InFlight:
      out = request_words(s.intent) + " with Lab-Delay-Ms: " + std::to_string(kInFlightDelayMs) + ", and again while it runs" +
            (s.takeover ? " once the lab clock has passed the lease" : "");
      break;
    case StepKind::Crash: out = request_words(s.intent) + " with Lab-Crash: " + s.crash_point + ", then a restart if it died"; break;
    case StepKind::Busy: out = request_words(s.intent) + " with Lab-Fail: busy"; break;
    case StepKind::Clock: out = "POST /admin/clock: advance_ms " + std::to_string(s.advance_ms); break;
    case StepKind::Balance:
      out = std::string("GET /accounts/") + kAccountNames[s.account] + " as " + kClientNames[s.asker];
      break;
  }
  if (!has_intent(s)) return out;
  Earlier e = earlier_use(h, i);
  const std::string of = "step " + std::to_string(e.step + 1);
  switch (e.relation) {
    case Relation::Fresh: break;
    case Relation::Same: out += "  [the request of " + of + " again]"; break;
    case Relation::Respelled: out += "  [" + of + "'s request, its JSON written differently]"; break;
    case Relation::OtherBody: out += "  [" + of + "'s key, another body]"; break;
    case Relation::OtherClient: out += "  [" + of + "'s key string, another client]"; break;
    case Relation::OtherEndpoint: out += "  [" + of + "'s key string, the other endpoint]"; break;
  }
  return out;
}

int requests_in(const History& h) {
  int n = 0;
  for (const Step& s : h) n += s.kind == StepKind::InFlight ? (s.takeover ? 3 : 2) : 1;
  return n;
}

}  // namespace grader::explore
