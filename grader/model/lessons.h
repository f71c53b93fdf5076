// lessons.h: which lesson each stage teaches, in one place. docs/learn/stage-2-unique-key.md ..
// stage-6-scope-ttl.md, and stages/stage_servers.json "traits".
//
// A model of stage S requires the lessons of stages <= S. A lesson beyond S is relaxed: the server may
// already do it or not yet (a stage 6 server passes stage 2), so the model keeps a world for each choice,
// and the answers decide. A world chooses once for the whole history: a server has a lesson or it has not.
// Three lessons are halves of one behaviour a server may get wrong on its own: keys that do not survive a
// restart (DurableKeys, stage 2's), refusals not kept under their keys (RefusalsKept, stage 5's stored
// outcomes), and keys forgotten early (KeptToTtl, stage 6's retention). A world without them explains such a
// server, so a model one stage lower accepts it (ladder.h credits the lesson).
#pragma once

#include <array>
#include <cstddef>

namespace grader::model {

enum class Lesson {
  Keys,          // a key table: a repeat moves no money; the key is required and read strictly   (trait keys)
  DurableKeys,   // the key table outlives a restart of the process (off: a restart forgets every key)  (durable-keys)
  Fingerprint,   // another canonical body under a key is 422                                      (fingerprint)
  InProgress,    // in_progress then completed: 409, lease, fence, outcome kept, 503 releases      (in-progress, lease)
  StoredReplay,  // a repeat after completion gets the first answer's bytes, Idempotent-Replayed   (stored-replay)
  RefusalsKept,  // a refusal's outcome is kept under its key like a success (off: the server may  (stored-replay)
                 // free the key of any refusal, so its retry runs again: only successes stored)
  Scope,         // keys scoped by (client, endpoint, key)                                         (scoped-keys)
  KeyTtl,        // keys expire after --key-ttl on the lab clock                                   (key-ttl)
  KeptToTtl,     // no key is forgotten before that (off: a row may be forgotten once its lease has  (key-ttl)
                 // passed on the lab clock: a retention too short, or an expiry that ignores --key-ttl)
};
constexpr int kLessonCount = 9;

struct LessonRow {
  Lesson lesson;
  int stage;  // the stage whose chapter teaches it
  const char* chapter;
};

inline constexpr std::array<LessonRow, kLessonCount> kLessons{{
    {Lesson::Keys, 2, "docs/learn/stage-2-unique-key.md"},
    {Lesson::DurableKeys, 2, "docs/learn/stage-2-unique-key.md"},
    {Lesson::Fingerprint, 3, "docs/learn/stage-3-fingerprint.md"},
    {Lesson::InProgress, 4, "docs/learn/stage-4-two-phase.md"},
    {Lesson::StoredReplay, 5, "docs/learn/stage-5-replay.md"},
    {Lesson::RefusalsKept, 5, "docs/learn/stage-5-replay.md"},
    {Lesson::Scope, 6, "docs/learn/stage-6-scope-ttl.md"},
    {Lesson::KeyTtl, 6, "docs/learn/stage-6-scope-ttl.md"},
    {Lesson::KeptToTtl, 6, "docs/learn/stage-6-scope-ttl.md"},
}};
static_assert([] {
  for (int i = 0; i < kLessonCount; ++i)
    if (static_cast<int>(kLessons[static_cast<std::size_t>(i)].lesson) != i) return false;
  return true;
}(), "kLessons is indexed by Lesson: one row per lesson, in the enum's order");

constexpr bool required_at(int stage, Lesson lesson) { return kLessons[static_cast<int>(lesson)].stage <= stage; }

using Lessons = std::array<bool, kLessonCount>;  // what one world's server does
constexpr bool has(const Lessons& l, Lesson lesson) { return l[static_cast<int>(lesson)]; }

}  // namespace grader::model
