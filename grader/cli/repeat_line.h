// repeat_line.h: how every `repeat:` line the grader prints begins. docs/teach/grader.md "The grader" (reading a failure).
//
//   repeat_prefix() == "cd '/home/me/lab' && '/home/me/lab/build/grader/grader'"
//
// A repeat line is pasted into another shell, often in another folder, while the server command and
// --bin-dir it carries may name files relative to where the grader ran (build/stages/..., a server of yours).
// So the line first goes back there, then runs this very grader binary.
#pragma once

#include <string>

namespace grader {

std::string repeat_prefix();

}  // namespace grader
