// shrink.cc: delta debugging over a history's steps, then simpler steps (shrink.h).
#include "grader/explore/shrink.h"

#include <algorithm>

namespace grader::explore {

namespace {

// Asks the predicate, counting the tries; past the budget every answer is "no" (keep what we have).
class Oracle {
 public:
  Oracle(const StillFails& f, int max) : f_(f), max_(max) {}
  bool fails(const History& h) {
    if (tries_ >= max_) return false;
    ++tries_;
    return f_(h);
  }
  int tries() const { return tries_; }

 private:
  const StillFails& f_;
  int max_;
  int tries_ = 0;
};

History without(const History& h, std::size_t from, std::size_t to) {
  History out(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(from));
  out.insert(out.end(), h.begin() + static_cast<std::ptrdiff_t>(to), h.end());
  return out;
}

// ddmin's reduction to complements: remove one of n chunks while the rest still fails; refine n when none can go.
History remove_chunks(History h, Oracle& oracle) {
  std::size_t n = 2;
  while (h.size() >= 2) {
    const std::size_t chunk = (h.size() + n - 1) / n;
    bool removed = false;
    for (std::size_t from = 0; from < h.size(); from += chunk) {
      History smaller = without(h, from, std::min(h.size(), from + chunk));
      if (oracle.fails(smaller)) {
        h = std::move(smaller);
        n = std::max<std::size_t>(n - 1, 2);
        removed = true;
        break;
      }
    }
    if (removed) continue;
    if (n >= h.size()) break;
    n = std::min(n * 2, h.size());
  }
  if (h.size() == 1 && oracle.fails(History{})) h.clear();
  return h;
}

}  // namespace

std::vector<Step> simplifications(const Step& s) {
  std::vector<Step> out;
  auto with = [&](auto change) {
    Step t = s;
    change(t);
    if (t != s) out.push_back(t);
  };
  switch (s.kind) {
    case StepKind::InFlight:
      with([](Step& t) { t.kind = StepKind::Send; t.takeover = false; });
      with([](Step& t) { t.takeover = false; });
      break;
    case StepKind::Crash:
      with([](Step& t) { t.kind = StepKind::Send; t.crash_point.clear(); });
      with([](Step& t) { t.crash_point = "before-money"; });
      break;
    case StepKind::Busy:
      with([](Step& t) { t.kind = StepKind::Send; });
      break;
    case StepKind::Send:
    case StepKind::Clock:
    case StepKind::Balance: break;
  }
  if (s.kind != StepKind::Clock && s.kind != StepKind::Balance) {
    with([](Step& t) { t.intent.respelled = false; });
    with([](Step& t) { t.intent.amount = 100; });
  }
  return out;
}

Shrunk shrink(const History& failing, const StillFails& still_fails, int max_tries) {
  Oracle oracle(still_fails, max_tries);
  History h = remove_chunks(failing, oracle);
  // Simpler steps, each kept while it still fails; a simpler step may let another step go, so once more.
  bool simpler = false;
  for (std::size_t i = 0; i < h.size(); ++i) {
    bool again = true;  // a simpler step may have simpler versions still: each makes the step strictly simpler
    while (again) {
      again = false;
      for (const Step& t : simplifications(h[i])) {
        History candidate = h;
        candidate[i] = t;
        if (oracle.fails(candidate)) {
          h = std::move(candidate);
          simpler = again = true;
          break;
        }
      }
    }
  }
  if (simpler) h = remove_chunks(std::move(h), oracle);
  return {std::move(h), oracle.tries()};
}

}  // namespace grader::explore
