// overlap.h: which of a check's requests the server was serving beside another. docs/teach/grader.md
// "The grader" (a 503 nobody asked for).
//
//   others_served_beside(history.of_check(name), op)  // 2: two other requests ran while op did
//   being_served(history.of_check(name))              // requests sent and not yet answered or ended
//
// A 503 the check did not ask for (no Lab-Fail) is the server saying "busy". When it came while other
// requests of the check were being served, the finding says so: a server whose requests fail when they
// overlap (threads sharing one database connection with no lock) shows it only then. A request's time at the
// server runs from its invoke to its answer, or, for one the client gave up on, to the end the observer saw;
// one never seen to end is still running. A pure function of the events, so tests feed it made-up ones.
#pragma once

#include <cstdint>
#include <vector>

#include "grader/record/history.h"

namespace grader {

// Where a 503 that came beside other requests sends the learner: the lesson is the bank's, not a stage's.
constexpr const char* kOverlapped503Hint =
    "a request that comes while others run waits for the database or runs beside them, it is not failed: one "
    "database connection per thread, or one lock held around a shared connection (503 is for a database that "
    "stays busy past a timeout)";

// How many other ops of `events` (one check's) were being served at some moment while `op` was.
int others_served_beside(const std::vector<Event>& events, std::int64_t op);
// How many ops of `events` were invoked and are neither answered nor seen to end.
int being_served(const std::vector<Event>& events);

}  // namespace grader
