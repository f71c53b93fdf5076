// timeline_svg.h: a history drawn as a timeline, one lane per client connection, as an SVG document.
// docs/teach/grader.md "The grader" (history); the playground shows the same picture live.
//
//   std::vector<Event> events = history.of_check("stage2.lost-response-retry");
//   std::string svg = timeline_svg(events, marks_for(outcome.findings, events, check.stage));
//
// What it draws (left to right is the order things happened; the format is grader/record/history.cc's):
//   - one band per Idempotency-Key (in the order the keys were first sent; "no key" for requests without
//     one), and in a band one lane per connection: an attempt reuses a lane whose last attempt had ended
//     before it began, so simultaneous copies stand one above the other;
//   - each attempt a bar from its invoke to its completion, labelled with the status it got. The shape
//     says how it ended, and so does the text, never the colour alone: a solid bar was answered 2xx, a
//     hatched bar with an "x" cap got an error status, a dashed bar running off to a "?" got no answer
//     (the client cannot know whether it ran). The observer's "ended" is a tick on that dashed bar;
//   - a fault (crash, SIGKILL, restart, clock jump, wait) as a vertical line across every lane;
//   - a marked attempt (a finding shows it) with a "!" triangle, the anomaly's name and a <title>; the
//     first in time carries id="first-violation", so a link can jump to it.
//
// Every attempt is a focusable <g class="attempt" tabindex="0" role="button" aria-label="op 3: POST /transfers
// key "k" -> 201 Created, replayed"> for the playground's keyboard use and its browser tests, with
//   data-op       the history's op
//   data-key      the Idempotency-Key as sent, quotes included; "" when none was sent
//   data-status   the status it got, or "unknown" (no response, or none yet)
//   data-outcome  ok | fail | unknown, as the history says (a request still running: unknown, and
//                 data-running="true")
//   data-anomaly  when marked: the marks' anomaly names, space-separated ("double-apply")
// The output is a pure function of the input (tests compare it for fixtures), and every text in it is
// XML-escaped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grader/record/anomaly.h"
#include "grader/record/history.h"

namespace grader {

struct TimelineMark {
  std::int64_t op;      // the attempt marked (an op of the history)
  std::string anomaly;  // its name, "double-apply"
  std::string text;     // the finding's line, shown in the attempt's <title>
  int fixed_by;         // the stage whose lesson fixes it (0: the contract)
};

// id_prefix makes the document's ids unique where several timelines share one page (the HTML report):
// the first violation is then "<id_prefix>first-violation".
std::string timeline_svg(const std::vector<Event>& events, const std::vector<TimelineMark>& marks,
                         const std::string& id_prefix = "");

// The marks a check's findings make on its history: a finding marks its ops, or else every invoke of its
// intent; a finding with neither (a balance, an operation's shape) marks nothing. check_stage: the stage of
// the check that found them (grader/record/anomaly.h:fixing_stage).
std::vector<TimelineMark> marks_for(const std::vector<Finding>& findings, const std::vector<Event>& events,
                                    int check_stage = 0);

}  // namespace grader
