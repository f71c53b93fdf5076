// violations.h: what the playground flags on the attempts it drew: the grader's anomalies, found in the
// session's own history and the ledger read from the server's file. docs/teach/the-playground.md "The playground".
//
//   auto marks = find_violations(history.of_check(check), read_table(db, "ledger"));
//   std::string svg = grader::timeline_svg(events, marks);   // the marks, and id="first-violation"
//
// The grader's audit (grader/record/audit.cc) judges intents it made itself; the playground's requests are the
// learner's or a story's, so it judges by what it can see of each key: the requests sent with it (their
// bodies' memo and amount), their answers, and the ledger entries carrying those memos (free mode and the
// stories give each intention its own memo). What it flags, on the exact attempts:
//   double-apply         a key's one request moved money more than once: every attempt that may have
//   lost-write           an attempt was told success (2xx) and no entry carries its memo and amount, nor
//                        any other amount under its key (a crash after "completed", before the money)
//   fingerprint-ignored  told success while the money that moved under its key was another amount
//   in-flight-lie        told "already processed" while the key's first request was still running
//   replay-mismatch      two answers of one key, one ledger entry, different bodies (a recomputed answer)
//   scope-leak           one client's request answered with a replay of another client's
// Each mark names the stage that fixes it (grader/record/anomaly.h).
//
// A session's history is bounded (session.h:kSessionEventsKept), so a key's older attempts may be gone, and
// the ledger is read only as far back as the kept attempts go. For a key whose earlier attempts were dropped
// (`dropped` keeps their keys, not their events) only double-apply is judged: it counts a request's own
// entries, and can miss one but not invent one. The others need the key's first attempt (in-flight-lie,
// scope-leak) or all its entries (lost-write, fingerprint-ignored, replay-mismatch): judged on a part, they
// would be found wrongly, so they are not judged for it. Thread safety: a pure function.
#pragma once

#include <vector>

#include "grader/record/history.h"
#include "grader/report/timeline_svg.h"
#include "playground/database_view.h"

namespace playground {

std::vector<grader::TimelineMark> find_violations(const std::vector<grader::Event>& events, const TableView& ledger,
                                                  const grader::History::Dropped& dropped = {});

}  // namespace playground
