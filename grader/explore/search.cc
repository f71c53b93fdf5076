// search.cc: histories until one is refused, shrunk and confirmed (search.h).
#include "grader/explore/search.h"

#include "grader/base/rng.h"

namespace grader::explore {

namespace {

// The step a run was refused at: a step of the history, kSetup, or kBalancesAtEnd.
int refused_step(const Run& r) {
  for (const Exchanged& x : r.exchanges)
    if (x.refused) return x.step;
  return kBalancesAtEnd;
}

std::string exchanges_text(const Run& r, int step) {
  std::string out;
  for (const Exchanged& x : r.exchanges) {
    if (x.step != step) continue;
    out += "     " + (x.role.empty() ? "" : x.role + ": ") + x.answer + (x.refused ? "    <- refused" : "") + "\n";
  }
  return out;
}

}  // namespace

std::uint64_t history_seed(std::uint64_t seed, int n) {
  return Rng::for_check(seed, "explore.history-" + std::to_string(n)).next();
}

Searched search(const StartServer& start, int stage, std::uint64_t seed, const Budget& budget, const ServerFacts& facts,
                std::chrono::steady_clock::time_point deadline, Recorder* recorder, const SearchProgress& progress) {
  Searched out;
  const auto in_time = [&] { return std::chrono::steady_clock::now() < deadline; };
  for (int n = 1; n <= budget.histories; ++n) {
    if (!in_time()) {
      out.out_of_time = true;
      return out;
    }
    History h = generate(history_seed(seed, n), stage, budget.length, facts.lease_seconds * 1000,
                         facts.key_ttl_seconds * 1000);
    Run run = run_history(start, stage, h);
    if (!run.error.empty()) {
      out.error = "history " + std::to_string(n) + ": " + run.error;
      return out;
    }
    if (!run.refused) {
      ++out.allowed;
      if (progress.allowed) progress.allowed(n, h);
      continue;
    }
    // Refused: what came after the refused step never ran, so it goes first; then the shrinking proper.
    const int at = refused_step(run);
    if (at >= 0) h.resize(static_cast<std::size_t>(at) + 1);
    std::string rule = run.refusal.rule;
    int lesson = run.refusal.lesson_stage;
    if (progress.shrinking) progress.shrinking(n, at, rule, h.size());
    // The same failure: the same rule, crediting the same lesson; or one crediting a lesson of an earlier
    // stage, which the shrinking follows down. A history can be told apart by two lessons (a crash and then
    // the clock past the lease: keys lost at the restart, stage 2's, or forgotten once the lease passed, stage
    // 6's), and the ladder credits the later one until a shorter history tells them apart.
    const auto fails_the_same = [&](const Run& r) {
      return r.refused && (r.refusal.lesson_stage < lesson || (r.refusal.lesson_stage == lesson && r.refusal.rule == rule));
    };
    Run last = run;  // the last run that failed: after shrinking, the shrunk history's own
    Shrunk shrunk = shrink(h, [&](const History& candidate) {
      if (!in_time()) return false;  // keep what we have
      Run r = run_history(start, stage, candidate);
      if (!fails_the_same(r)) return false;
      rule = r.refusal.rule;
      lesson = r.refusal.lesson_stage;
      last = std::move(r);
      return true;
    }, budget.max_shrink_tries);
    const bool unchanged = shrunk.history == h;  // no shorter one failed: the first run is its own
    Divergence d{.number = n, .steps_before = h.size(), .history = std::move(shrunk.history), .tries = shrunk.tries,
                 .run = unchanged ? std::move(run) : std::move(last), .confirmed = false};
    // Once more on a fresh server, told to the recorder: the run the report's timeline shows.
    if (in_time()) {
      Run again = run_history(start, stage, d.history, recorder);
      if (again.error.empty() && fails_the_same(again)) {
        d.run = std::move(again);
        d.confirmed = true;
      }
    }
    out.divergence = std::move(d);
    return out;
  }
  return out;
}

std::string steps_text(const History& h, const Run& r) {
  std::string out = "setup: " + describe_setup() + "\n";
  if (refused_step(r) == kSetup) out += exchanges_text(r, kSetup);
  for (std::size_t i = 0; i < h.size(); ++i)
    out += std::to_string(i + 1) + ". " + describe(h, i) + "\n" + exchanges_text(r, static_cast<int>(i));
  if (refused_step(r) == kBalancesAtEnd) out += "then every balance, read by its owner:\n" + exchanges_text(r, kBalancesAtEnd);
  return out;
}

std::string refusal_text(const Run& r) {
  const model::Judgement& j = r.refusal;
  std::string out = "rule " + j.rule + ": " + j.rule_text + "\n" + "chapter: " + j.chapter + "\n" +
                    "lacking: " + model::lacking_words(j) + "\n" +
                    "allowed: " + j.allowed_words + "\n" + "observed: " + j.observed + "\n";
  if (j.capped || r.capped) out += "(the model dropped states past its limit on the way: this refusal may be the model's own)\n";
  return out;
}

std::string confirmation_text(const Divergence& d) {
  return d.confirmed ? "(run once more on a fresh server: refused again, by the same rule)\n"
                     : "(not refused again when run once more on a fresh server, or not run again for lack of time: "
                       "what it shows depends on timing)\n";
}

}  // namespace grader::explore
