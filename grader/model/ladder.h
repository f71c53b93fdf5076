// ladder.h: which lesson a refused answer shows missing (issue 50: every finding is true). docs/teach/
// grader-checks-itself.md "Explore: random histories judged by the model".
//
//   Ladder ladder(/*stage=*/6, settings);     // used as a Model: send, answer, judge, restart
//   Judgement j = ladder.judge(request, answer);
//   if (!j.allowed) j.lesson_stage             // the stage whose lesson the server lacks (0: the contract)
//
// The model of stage N refuses an answer no server with the lessons of stages 2..N could give. That the
// server lacks one of them is sure; which one the refusing world's rule does not say: a world that expected a
// replay names stage 5's rule when the server in fact forgot the key at its restart (stage 2's lesson). So
// the ladder asks the models below. The model of stage k keeps a subset of the worlds of stage k-1 (its
// lessons required, the rest relaxed: lessons.h), so if the model of stage k-1 allows every answer of the
// history and the model of stage k refuses the last one, a server with the lessons of the stages before k
// could have answered so and none with stage k's could: the lesson lacking is stage k's, and the refusal shown
// is that model's, naming a rule of stage k where one of its worlds had one (Model::prefer_rules_of). When
// even the model of stage 1, which requires no lesson, refuses, no choice of lessons explains the answer: the
// contract is broken, or a lesson half learnt (a fingerprint of the raw bytes: 422 to the same JSON written
// otherwise), and the stage's model names the rule and its stage as it judged (contract.h, rules.h).
//
// A world without a lesson is a server that does not do it at all. Two mistakes a server makes with a lesson
// half done have worlds of their own, so that the ladder finds them: keys lost at a restart (DurableKeys,
// stage 2's) and keys forgotten once their lease passed (KeptToTtl, stage 6's retention) (lessons.h).
//
// Only the model of stage N runs as the history goes; the ones below are run on the history so far when it
// refuses an answer, and the history is kept for that (every send, answer and restart, in order).
#pragma once

#include <string>
#include <vector>

#include "grader/model/contract.h"

namespace grader::model {

class Ladder {
 public:
  Ladder(int stage, Settings settings);

  Judgement judge(const Request& request, const Answer& answer);
  void send(int id, const Request& request);
  Judgement answer(int id, const Answer& answer);
  void restart();

 private:
  struct Call {
    enum class Kind { Send, Answer, Restart } kind;
    int id = 0;
    Request request;
    Answer answer;
  };
  Judgement credit(const Judgement& refused_at_top) const;
  Judgement replay(int stage, bool* refused_earlier) const;

  int stage_;
  Settings settings_;
  Model top_;               // the model of stage_, run as the history goes
  std::vector<Call> calls_;  // the history so far, for the models below
  int next_auto_id_ = 1000000;  // judge()'s own flight ids
};

// The lesson a refusal credits, in words: "stage 3's lesson (docs/learn/stage-3-fingerprint.md): a server with
// the lessons of the stages before it could answer so, none with it", or the contract's.
std::string lacking_words(const Judgement& refusal);

}  // namespace grader::model
