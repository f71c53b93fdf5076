// overlap.cc: a request's time at the server, from the history's events (overlap.h).
#include "grader/record/overlap.h"

#include <limits>
#include <map>

namespace grader {
namespace {

struct Span {
  double from = 0;
  double to = std::numeric_limits<double>::infinity();  // not answered nor seen to end: still running
};

// Each op's span: its invoke, then its answer (ok, fail) or, when the client gave up (unknown), its end.
std::map<std::int64_t, Span> spans_of(const std::vector<Event>& events) {
  std::map<std::int64_t, Span> spans;
  for (const Event& e : events) {
    if (e.type == EventType::Invoke) spans[e.op].from = e.t_ms;
    if (e.type == EventType::Ok || e.type == EventType::Fail || e.type == EventType::Ended)
      if (auto it = spans.find(e.op); it != spans.end()) it->second.to = e.t_ms;
  }
  return spans;
}

}  // namespace

int others_served_beside(const std::vector<Event>& events, std::int64_t op) {
  const auto spans = spans_of(events);
  const auto mine = spans.find(op);
  if (mine == spans.end()) return 0;
  int others = 0;
  for (const auto& [other, span] : spans)
    if (other != op && span.from < mine->second.to && span.to > mine->second.from) ++others;
  return others;
}

int being_served(const std::vector<Event>& events) {
  int running = 0;
  for (const auto& [op, span] : spans_of(events))
    if (span.to == std::numeric_limits<double>::infinity()) ++running;
  return running;
}

}  // namespace grader
