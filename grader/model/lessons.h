// lessons.h: which lesson each stage teaches, in one place. docs/learn/stage-2-unique-key.md ..
// stage-6-scope-ttl.md, and stages/stage_servers.json "traits".
//
// A model of stage S requires the lessons of stages <= S. A lesson beyond S is relaxed: the server may
// already do it or not yet (a stage 6 server passes stage 2), so the model keeps a world for each choice,
// and the answers decide. A world chooses once for the whole history: a server has a lesson or it has not.
#pragma once

#include <array>

namespace grader::model {

enum class Lesson {
  Keys,          // a key table: a repeat moves no money; the key is required and read strictly   (trait keys)
  Fingerprint,   // another canonical body under a key is 422                                      (fingerprint)
  InProgress,    // in_progress then completed: 409, lease, fence, outcome kept, 503 releases      (in-progress, lease)
  StoredReplay,  // a repeat after completion gets the first answer's bytes, Idempotent-Replayed   (stored-replay)
  Scope,         // keys scoped by (client, endpoint, key)                                         (scoped-keys)
  KeyTtl,        // keys expire after --key-ttl on the lab clock                                   (key-ttl)
};
constexpr int kLessonCount = 6;

struct LessonRow {
  Lesson lesson;
  int stage;  // the stage whose chapter teaches it
  const char* chapter;
};

inline constexpr std::array<LessonRow, kLessonCount> kLessons{{
    {Lesson::Keys, 2, "docs/learn/stage-2-unique-key.md"},
    {Lesson::Fingerprint, 3, "docs/learn/stage-3-fingerprint.md"},
    {Lesson::InProgress, 4, "docs/learn/stage-4-two-phase.md"},
    {Lesson::StoredReplay, 5, "docs/learn/stage-5-replay.md"},
    {Lesson::Scope, 6, "docs/learn/stage-6-scope-ttl.md"},
    {Lesson::KeyTtl, 6, "docs/learn/stage-6-scope-ttl.md"},
}};

constexpr bool required_at(int stage, Lesson lesson) { return kLessons[static_cast<int>(lesson)].stage <= stage; }

using Lessons = std::array<bool, kLessonCount>;  // what one world's server does
constexpr bool has(const Lessons& l, Lesson lesson) { return l[static_cast<int>(lesson)]; }

}  // namespace grader::model
