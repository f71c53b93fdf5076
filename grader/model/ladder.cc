// ladder.cc: the model of the graded stage as the history goes, and the models below it once it refuses
// (ladder.h).
#include "grader/model/ladder.h"

#include "grader/model/lessons.h"

namespace grader::model {

namespace {
// A model of stage k is asked for the rules of its own lesson; stage 1 has none beyond the contract (0).
int lesson_of(int stage) { return stage <= 1 ? 0 : stage; }
}  // namespace

Ladder::Ladder(int stage, Settings settings) : stage_(stage), settings_(settings), top_(stage, std::move(settings)) {}

Judgement Ladder::judge(const Request& request, const Answer& answer) {
  const int id = next_auto_id_++;
  send(id, request);
  return this->answer(id, answer);
}

void Ladder::send(int id, const Request& request) {
  calls_.push_back({.kind = Call::Kind::Send, .id = id, .request = request, .answer = {}});
  top_.send(id, request);
}

Judgement Ladder::answer(int id, const Answer& answer) {
  calls_.push_back({.kind = Call::Kind::Answer, .id = id, .request = {}, .answer = answer});
  Judgement j = top_.answer(id, answer);
  return j.allowed ? j : credit(j);
}

void Ladder::restart() {
  calls_.push_back({.kind = Call::Kind::Restart, .id = 0, .request = {}, .answer = {}});
  top_.restart();
}

// The history so far on the model of stage k, asked for the rules of its lesson: its last judgement, and
// whether it refused an answer before the last (only a model that dropped worlds does: capped).
Judgement Ladder::replay(int k, bool* earlier) const {
  Model below(k, settings_);
  below.prefer_rules_of(lesson_of(k));
  Judgement last;
  *earlier = false;
  for (std::size_t i = 0; i < calls_.size() && last.allowed; ++i) {
    const Call& c = calls_[i];
    switch (c.kind) {
      case Call::Kind::Send: below.send(c.id, c.request); break;
      case Call::Kind::Restart: below.restart(); break;
      case Call::Kind::Answer:
        last = below.answer(c.id, c.answer);
        *earlier = !last.allowed && i + 1 < calls_.size();
        break;
    }
  }
  return last;
}

Judgement Ladder::credit(const Judgement& refused_at_top) const {
  for (int k = 1; k <= stage_; ++k) {
    bool earlier = false;
    Judgement below = replay(k, &earlier);
    if (below.allowed) continue;  // a server without the lessons of stage k on could answer so
    if (k == 1) break;  // no choice of lessons explains it: the rule's own stage, as the top model names it
    below.lesson_stage = lesson_of(k);
    below.by_ladder = true;
    below.capped = below.capped || earlier || refused_at_top.capped;
    return below;
  }
  return refused_at_top;  // lesson_stage: the rule's stage (Model::answer)
}

std::string lacking_words(const Judgement& refusal) {
  std::string chapter = "docs/reference/http-contract.md";
  for (const LessonRow& row : kLessons)
    if (row.stage == refusal.lesson_stage) chapter = row.chapter;
  const std::string lesson = refusal.lesson_stage == 0 ? "the contract every stage keeps (" + chapter + ")"
                                                       : "stage " + std::to_string(refusal.lesson_stage) + "'s lesson (" + chapter + ")";
  if (refusal.by_ladder)
    return lesson + ": a server with the lessons of the stages before it could answer so, none with it";
  return lesson + ", the stage of the rule: no choice of lessons done or not done explains the answer";
}

}  // namespace grader::model
