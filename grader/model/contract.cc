// contract.cc: the Model's set of worlds, stepped by each request and pruned by each answer (contract.h).
#include "grader/model/contract.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "grader/model/rules.h"

namespace grader::model {

namespace {

// Names rule `id` in a refusal: its id, its text and the chapter that teaches it.
void name_rule(Judgement& refusal, const char* id) {
  const Rule& r = rule(id);
  refusal.rule = r.id;
  refusal.rule_text = r.text;
  refusal.chapter = r.chapter;
}

// The rule one refusing world names for this answer: what the answer did that the world forbids most, before
// the rule of the step the world expected (e.rule). First a repeat that moved the money again (M7), the worst
// a server can do to a retrying client; then a success that names no entry for a request with a key (M13: the
// key was completed before its money moved); then the same body refused while its first request runs (M9); then
// a first answer marked as a replay (M15).
const char* world_rule(const Expect& e, const Answer& observed, World& z, int id, bool keyed) {
  return moves_again(e, observed, z)                     ? "M7"
         : completed_without_outcome(e, observed, keyed) ? "M13"
         : refuses_same_body(e, observed, z, id)         ? "M9"
         : first_answer_marked_replayed(e, observed, z)  ? "M15"
                                                         : e.rule;
}

}  // namespace

Model::Model(int stage, Settings settings) : stage_(stage), settings_(std::move(settings)) {
  // One world per choice of the lessons beyond the stage; a lesson other than the key table needs it.
  std::vector<int> relaxed;
  for (const LessonRow& row : kLessons)
    if (!required_at(stage_, row.lesson)) relaxed.push_back(static_cast<int>(row.lesson));
  for (unsigned mask = 0; mask < (1u << relaxed.size()); ++mask) {
    World w;
    for (const LessonRow& row : kLessons) w.lessons[static_cast<int>(row.lesson)] = required_at(stage_, row.lesson);
    for (std::size_t k = 0; k < relaxed.size(); ++k)
      if (mask & (1u << k)) w.lessons[static_cast<std::size_t>(relaxed[k])] = true;
    bool any = std::any_of(w.lessons.begin() + 1, w.lessons.end(), [](bool b) { return b; });
    if (any && !has(w.lessons, Lesson::Keys)) continue;
    if (has(w.lessons, Lesson::KeyTtl) && !has(w.lessons, Lesson::KeptToTtl)) continue;  // the same as without KeyTtl
    worlds_.push_back(w);
  }
  // The stage's own behaviour first: a refusal is explained by the world nearest the stage's reference server
  // (lessons up to the stage, none later; a key table keeps its keys, refusals included, until its retention).
  Lessons reference{};
  for (const LessonRow& row : kLessons) reference[static_cast<int>(row.lesson)] = required_at(stage_, row.lesson);
  reference[static_cast<int>(Lesson::KeptToTtl)] = stage_ >= 2;
  reference[static_cast<int>(Lesson::RefusalsKept)] = stage_ >= 2;
  const auto distance = [&reference](const World& w) {
    int d = 0;
    for (int l = 0; l < kLessonCount; ++l) d += w.lessons[static_cast<std::size_t>(l)] != reference[static_cast<std::size_t>(l)];
    return d;
  };
  std::stable_sort(worlds_.begin(), worlds_.end(), [&](const World& a, const World& b) { return distance(a) < distance(b); });
}

void Model::send(int id, const Request& request) {
  last_real_ms_ = std::max(last_real_ms_, request.real_ms);
  if (auto key = header_value(request.headers, "Idempotency-Key")) {
    const std::string sent = request.path + " " + header_value(request.headers, "Authorization").value_or("") + " " + *key;
    key_sent_again_ = key_sent_again_ || !keys_sent_.insert(sent).second;
    for (int other : unanswered_)
      if (key_of_.count(other) && key_of_[other] == sent) overlapped_.insert({other, id});
    key_of_[id] = sent;
    if (header_value(request.headers, "Lab-Fail") == "busy") busy_ids_.insert(id);
    crashed_with_key_ = crashed_with_key_ || header_value(request.headers, "Lab-Crash").has_value();
  }
  unanswered_.insert(id);
  for (World& w : worlds_) w.flights.push_back(Flight{.id = id, .request = request, .offset_at_send = w.offset_ms,
                                                      .phase = Flight::Phase::Pending, .client = 0, .money = {},
                                                      .row = 0, .fence = 0, .expect = {}});
}

Judgement Model::judge(const Request& request, const Answer& observed) {
  int id = next_auto_id_++;
  send(id, request);
  return answer(id, observed);
}

// Every other request in flight may have moved on by now: by none, one or both of its steps.
std::vector<World> Model::advance_others(const World& w, int except, std::int64_t now) const {
  std::vector<World> out{w};
  for (const Flight& f : w.flights) {
    if (f.id == except) continue;
    std::vector<World> next;
    for (const World& x : out) {
      next.push_back(x);
      const Flight* g = const_cast<World&>(x).flight(f.id);
      if (g == nullptr || g->phase == Flight::Phase::Done) continue;
      std::vector<World> one = g->phase == Flight::Phase::Pending ? arrive(x, f.id, settings_, now) : finish(x, f.id, settings_, now);
      for (const World& y : one) {
        next.push_back(y);
        const Flight* h = const_cast<World&>(y).flight(f.id);
        if (h->phase == Flight::Phase::Holding)
          for (World& z : finish(y, f.id, settings_, now)) next.push_back(std::move(z));
      }
    }
    out = std::move(next);
  }
  return out;
}

void Model::keep(std::vector<World>& next) {
  std::set<std::string> seen;
  std::vector<World> kept;
  for (World& w : next) {
    if (!seen.insert(w.key()).second) continue;
    if (kept.size() == settings_.max_worlds) { capped_ = true; break; }
    kept.push_back(std::move(w));
  }
  worlds_ = std::move(kept);
}

Judgement Model::answer(int id, const Answer& observed) {
  unanswered_.erase(id);
  std::vector<World> next;
  Judgement refusal;
  refusal.allowed = false;
  std::set<std::string> words;
  Judgement preferred;  // the first refusing world's own rule, when it is of prefer_stage_
  bool in_flight_409 = false;  // some refusing world found the key's first request still running (M10)
  bool fenced_out = false;     // some refusing world fenced this request out, its claim taken over (M11)
  bool another_body = false;   // some refusing world found the key used with another body (M9's 422)
  bool closest = false, moved_again = false, stub_completion = false, marked_replay = false;
  for (const World& w : worlds_) {
    for (const World& x : advance_others(w, id, last_real_ms_)) {
      // This request's own steps, to the end.
      std::vector<World> ends;
      const Flight* f = const_cast<World&>(x).flight(id);
      if (f == nullptr) continue;
      std::vector<World> stepped = f->phase == Flight::Phase::Pending ? arrive(x, id, settings_, last_real_ms_) : std::vector<World>{x};
      for (World& y : stepped) {
        if (y.flight(id)->phase == Flight::Phase::Holding) {
          for (World& z : finish(y, id, settings_, last_real_ms_)) ends.push_back(std::move(z));
        } else {
          ends.push_back(std::move(y));
        }
      }
      for (World& z : ends) {
        Expect e = z.flight(id)->expect;
        std::string why = match(e, observed, z);
        if (why.empty()) {
          std::erase_if(z.flights, [&](const Flight& g) { return g.id == id; });
          next.push_back(std::move(z));
        } else {
          // The rule named is the first world's, unless a later one expected the status that came: that
          // world's rule says best what is wrong with this answer; or, while the rule named is the
          // contract's, a later world's that is a lesson's (a repeat answered "already processed" while its
          // first request runs: the world in which it ran as a first request names M5, the one in which it
          // found its key claimed names M10, stage 4's lesson, which is what the server lacks). Above all: a
          // world in which the answer is a repeat that moved the money again (M7), the worst a server can do
          // to a retrying client; then one in which a request with a key is answered with a success that
          // names no entry (M13: the key was completed before its money moved, stage 4's lesson whatever
          // the stage held to).
          const bool keyed = header_value(z.flight(id)->request.headers, "Idempotency-Key").has_value();
          bool again = !moved_again && moves_again(e, observed, z);
          bool stub = !moved_again && !stub_completion && completed_without_outcome(e, observed, keyed);
          // An answer marked Idempotent-Replayed: true says it is a stored replay: the world that expected one
          // (M15, stage 5's) judges it before any other that expected its status (M12's rebuilt outcome).
          bool marked = !moved_again && !stub_completion && !stub && !marked_replay && e.kind == Expect::Kind::Replay &&
                        header_value(observed.headers, "Idempotent-Replayed") == "true";
          bool closer = !moved_again && !stub_completion && !stub && !marked_replay && !closest && e.status == observed.status;
          bool lesson = !moved_again && !stub_completion && !marked_replay && !closest && !refusal.rule.empty() &&
                        rule_stage(refusal.rule) == 0 && rule_stage(e.rule) > 0;
          if (refusal.rule.empty() || closer || again || stub || lesson || marked) {
            closest = closest || closer || marked;
            marked_replay = marked_replay || marked;
            moved_again = moved_again || again;
            stub_completion = stub_completion || stub;
            // A 409 or 503 whose only fault is its Retry-After (missing, or not whole seconds) is the
            // contract's (M23), whichever lesson asked for the status: its status and problem type say the
            // server has the lesson (the named checks credit the contract too; the mutant no-retry-after).
            // (Inside this branch `again` and `stub` are what world_rule tries first: M7, M13.)
            const bool retry_after_form = why == "Retry-After is not a positive number of seconds";
            name_rule(refusal, !again && !stub && retry_after_form ? "M23" : world_rule(e, observed, z, id, keyed));
            refusal.observed = why;
          }
          if (prefer_stage_ >= 0 && preferred.rule.empty()) {
            // A repeat run as new after a restart says why (M24, the key table lost) before what it did.
            const char* own = run_as_new_after_restart(e, observed, z) ? "M24" : world_rule(e, observed, z, id, keyed);
            if (rule_stage(own) == prefer_stage_) {
              name_rule(preferred, own);
              preferred.observed = why;
            }
          }
          in_flight_409 = in_flight_409 || std::string_view(e.rule) == "M10";
          fenced_out = fenced_out || (std::string_view(e.rule) == "M11" && e.kind == Expect::Kind::Problem);
          another_body = another_body || std::string_view(e.rule) == "M9";
          if (words.size() < 4) words.insert(describe(e, z));
        }
      }
    }
  }
  if (next.empty()) {
    name_money_seen_late(refusal);
    name_retry_after_busy(refusal, id, observed);
    // A repeat answered 200 with a body of its own ("processing", "done") while, in some world, its first
    // request still ran: the server tells a repeat in flight that it is done, where stage 4 says 409 (M10),
    // not a stage-2 body mistake (M8, which the closest status named): the mutant in-progress-says-done.
    if (in_flight_409 && refusal.rule == "M8" && observed.answered && observed.status == 200) {
      name_rule(refusal, "M10");
    }
    // A 409 in progress no world allows: a key held when nothing held it. A request in flight together with
    // another of its key was fenced out before its lease ended (lease-end-as-now: M11); otherwise the key of
    // a finished request was never completed (completed-state-typo: M13, the completion goes with the money).
    // Stage 4's either way, never stage 2's M8, stage 5's M15 or the contract's, whatever the closest world
    // expected; unless the key had been used with another body: that 409 stands for the 422 (M9, stage 3's
    // lesson: the mutant mismatch-as-conflict). Its Retry-After stays the contract's (M23).
    const bool in_progress_409 = observed.answered && observed.status == 409 &&
                                 observed.body.find("/problems/request-in-progress") != std::string::npos;
    if (in_progress_409 && refusal.rule != "M23" && rule_stage(refusal.rule) != 4) {
      name_rule(refusal, another_body ? "M9" : overlapped_.count(id) ? "M11" : "M13");
    }
    // Money moved again by a request that some world had fenced out (its claim taken over): the fence was not
    // checked (fence-not-checked), M11, stage 4's; M7 (a repeat moved money) says only what it did.
    if (fenced_out && refusal.rule == "M7") {
      name_rule(refusal, "M11");
    }
    // The preferred stage's rule replaces one of another stage; and M24 replaces any, since it says why a
    // repeat ran as new (M7's money moved twice, M8's "already processed" due) where the others say only that.
    if (!preferred.rule.empty() && (rule_stage(refusal.rule) != prefer_stage_ || preferred.rule == "M24")) {
      name_rule(refusal, preferred.rule.c_str());
      refusal.observed = preferred.observed;
    }
    refusal.lesson_stage = rule_stage(refusal.rule);
    for (const std::string& w : words) refusal.allowed_words += (refusal.allowed_words.empty() ? "" : "; or ") + w;
    refusal.capped = capped_;
    return refusal;  // the worlds stay as they were: the history diverged here
  }
  keep(next);
  if (busy_ids_.count(id) && observed.answered && observed.status == 503 && key_of_.count(id)) failed_busy_.insert(key_of_[id]);
  Judgement ok;
  ok.capped = capped_;
  return ok;
}

// Money that moved more or fewer times than every world allows shows only later, in a balance: the
// from_balance_after of another request (M5) or GET /accounts (M20), rules of the contract. The lesson lacking
// is where the money went astray, which no world kept: after a crash of a request with a key, the money and
// the key's completion went apart (M13, stage 4's lesson); else, once some key was sent again, a repeat moved
// it again (M7, stage 2's). A server with every lesson keeps both, so the balance names the contract only
// when neither happened.
void Model::name_money_seen_late(Judgement& refusal) const {
  // Or in the bank's decision on a later request: a 402 where the money the model holds allows the transfer, a
  // 201 where it does not (wrong turn 4b: its money moved at the crash, its repeat then rebuilt as stage 4's).
  const bool balance = refusal.observed.starts_with("from_balance_after ") || refusal.observed.starts_with("balance is not") ||
                       refusal.observed == "status 402, not 201" || refusal.observed == "status 201, not 402";
  if (!balance || rule_stage(refusal.rule) != 0) return;
  const char* named = crashed_with_key_ ? "M13" : key_sent_again_ ? "M7" : nullptr;
  if (named == nullptr) return;
  name_rule(refusal, named);
  refusal.observed += " (the money moved another number of times than the history allows, earlier)";
}

// A retry of a key whose request failed busy (503), answered as a repeat ("already processed", 409) where it
// was due to run: every world of stage 4 on expected a run, whose rule is the contract's (M4, M5); the lesson
// lacking is that the 503 releases the claim (M22, stage 4's). Under stages 2-3 a 409 is refused by the rule
// of "already processed" (M8), though what the server lacks is the release too.
void Model::name_retry_after_busy(Judgement& refusal, int id, const Answer& observed) const {
  auto key = key_of_.find(id);
  if (key == key_of_.end() || !failed_busy_.count(key->second) || !observed.answered) return;
  // "already processed" is a lesson's answer too (M8): renamed only when the contract's rule was named. A 409
  // in progress says the claim was kept, whatever rule was named, unless another rule (M7, M13, M23) said more.
  const bool kept = observed.status == 409 && refusal.rule != "M7" && refusal.rule != "M13" && refusal.rule != "M23";
  if (!kept && !(observed.status == 200 && rule_stage(refusal.rule) == 0)) return;
  name_rule(refusal, "M22");
}

void Model::restart() {
  unanswered_.clear();  // what was in flight died with the process
  for (World& w : worlds_) {
    w.alive = true;
    w.restarts += 1;
    w.flights.clear();  // what was in flight died with the process
    for (KeyRow& r : w.keys) r.holder = -1;
    if (!has(w.lessons, Lesson::DurableKeys)) w.keys.clear();
  }
  std::vector<World> same = std::move(worlds_);
  keep(same);
}

}  // namespace grader::model
