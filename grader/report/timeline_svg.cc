// timeline_svg.cc: see timeline_svg.h. The picture, top to bottom: two rows of fault labels (if there are
// faults), the key bands with their lanes, the time span and the legend. Left to right: the key labels,
// then one column per moment (Moments below), so a burst of microseconds and a wait of seconds each take
// one column: the picture shows what overlapped and what came after what, not durations (each attempt's
// <title> gives its times).
#include "grader/report/timeline_svg.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "grader/base/xml_escape.h"
#include "grader/demo/demo_scene.h"
#include "grader/report/decimal_text.h"

namespace grader {
namespace {

// Layout, in SVG units (pixels at 100 %). The width is fixed so pages can place it; lanes add height.
constexpr double kWidth = 900;
constexpr double kPlotLeft = 160;     // left of it: the key bands' labels
constexpr double kPlotRight = 868;    // an open-ended bar runs to here; its "?" stands after it
constexpr double kFaultsHeight = 34;  // two rows of fault labels, alternating so neighbours do not overlap
constexpr double kNoFaultsHeight = 6;
constexpr double kLaneHeight = 26;              // a status text line above a bar
constexpr double kBarTop = 13, kBarHeight = 9;  // within a lane
constexpr double kFooterHeight = 42;            // the time span and the legend
constexpr std::size_t kKeyLabelChars = 22;      // a longer key is cut; its band's <title> holds all of it
// Events of one kind this close in time share a moment: the copies of a burst leave within microseconds of
// each other and start in one column.
constexpr double kSameMomentMs = 1.0;
constexpr double kCharWidth = 5.6;  // of 10px sans-serif text, about: where the legend's next item goes

std::string attr(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + xml_escape(value) + "\"";
}

// The first `max` characters (not bytes) of UTF-8 text, then "…" if anything was cut.
std::string cut(const std::string& text, std::size_t max) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (chars++ == max) return text.substr(0, i) + "\u2026";
  }
  return text;
}

// One attempt: its invoke, how it completed for the client, and the observer's view of its end.
struct Op {
  const Event* invoke = nullptr;
  const Event* completion = nullptr;  // ok, fail or unknown; none while the request still runs
  const Event* ended = nullptr;       // after an unknown, if the observer saw the server end it
  std::size_t band = 0, lane = 0;
  std::size_t start = 0, end = 0;  // moments
  bool open_ended() const { return !completion || completion->type == EventType::Unknown; }
  bool replayed() const {
    return completion && completion->response &&
           completion->response->header("Idempotent-Replayed").value_or("") == "true";
  }
};

struct Band {
  std::optional<std::string> key;
  std::vector<std::optional<std::size_t>> lane_end;  // each lane's last moment; nullopt: open-ended, never free
  std::size_t attempts = 0;
  double top = 0;
};

// The moments: each event drawn starts one, except that an event of the same kind as the one before, at most
// kSameMomentMs after the moment began, joins it (a burst's invokes, their answers). An answer and the
// retry sent after it never share one, however fast the retry: the picture must show which came first.
class Moments {
 public:
  explicit Moments(const std::vector<Event>& events) {
    std::vector<const Event*> drawn;
    for (const auto& e : events)
      if (e.type != EventType::Observe) drawn.push_back(&e);
    std::stable_sort(drawn.begin(), drawn.end(), [](const Event* a, const Event* b) { return a->t_ms < b->t_ms; });
    int kind = -1;
    for (const Event* e : drawn) {
      if (starts_.empty() || kind_of(*e) != kind || e->t_ms - starts_.back() > kSameMomentMs)
        starts_.push_back(e->t_ms);
      kind = kind_of(*e);
      moment_of_[e] = starts_.size() - 1;
      last_ms_ = std::max(last_ms_, e->t_ms);
    }
    if (starts_.empty()) starts_.push_back(0);
    slot_ = (kPlotRight - kPlotLeft) / static_cast<double>(starts_.size());
  }
  std::size_t of(const Event& e) const { return moment_of_.at(&e); }
  double left(std::size_t moment) const { return kPlotLeft + slot_ * static_cast<double>(moment); }
  double right(std::size_t moment) const { return left(moment + 1); }
  double middle(std::size_t moment) const { return left(moment) + slot_ / 2; }
  // The gap kept at each end of a bar, so bars of one lane in neighbouring moments do not touch.
  double gap() const { return std::min(1.0, slot_ / 4); }
  double first_ms() const { return starts_.front(); }
  double span_ms() const { return last_ms_ - starts_.front(); }

 private:
  static int kind_of(const Event& e) {
    switch (e.type) {
      case EventType::Invoke:
        return 0;
      case EventType::Ok:
      case EventType::Fail:
      case EventType::Unknown:
        return 1;
      case EventType::Ended:
        return 2;
      default:
        return 3;
    }
  }
  std::vector<double> starts_;  // the time each moment began
  std::map<const Event*, std::size_t> moment_of_;
  double slot_ = 0, last_ms_ = 0;
};

std::string key_text(const std::optional<std::string>& key) { return key ? "key " + *key : "no key"; }

std::string status_label(const Op& op) {
  if (!op.completion) return "no answer yet";
  if (!op.completion->response) return "no response";
  return std::to_string(op.completion->response->status) + (op.replayed() ? " replay" : "");
}

std::string fault_label(const Event& fault) {
  if (fault.fault == "lab-crash") return "crash";
  if (fault.fault == "sigkill") return "SIGKILL";
  if (fault.fault == "clock") {
    // "advance 21000 ms: why": the jump, in seconds when whole.
    long long ms = 0;
    if (std::sscanf(fault.detail.c_str(), "advance %lld ms", &ms) == 1)
      return "clock +" + (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms");
  }
  return fault.fault;
}

// What a screen reader says, and the first line of the attempt's <title>.
std::string describe(const Op& op) {
  const Event& in = *op.invoke;
  std::string text = "op " + std::to_string(in.op) + ": " + in.request.method + " " + in.request.target + " " +
                     key_text(in.key) + " -> ";
  if (!op.completion) return text + "no answer yet";
  if (!op.completion->response) {
    text += "no response (" + op.completion->error + ")";
    if (op.ended)
      text += op.ended->response ? ", the server ended it later with " + status_line(op.ended->response->status)
                                 : ", then " + op.ended->error;
    return text;
  }
  return text + status_line(op.completion->response->status) + (op.replayed() ? ", replayed" : "");
}

std::string times_text(const Op& op, double zero) {
  std::string text = "sent at " + one_decimal(op.invoke->t_ms - zero) + " ms";
  if (op.completion) text += ", client's end at " + one_decimal(op.completion->t_ms - zero) + " ms";
  if (op.ended) text += ", server's end at " + one_decimal(op.ended->t_ms - zero) + " ms";
  return text;
}

std::string style() {
  return "<style>"
         "svg.timeline text{font:10px sans-serif;fill:#1a1a1a}"
         "svg.timeline .key-band text{font:10px monospace}"
         "svg.timeline .band-shade{fill:#f2f2f2}"
         "svg.timeline .band-rule{stroke:#bbb}"
         "svg.timeline .bar-ok,svg.timeline .legend-ok{fill:#2e7d32;stroke:#1b5e20}"
         "svg.timeline .bar-fail,svg.timeline .legend-fail{stroke:#b71c1c}"
         "svg.timeline .bar-unknown,svg.timeline .legend-unknown{fill:#fff;stroke:#555;stroke-dasharray:4 3}"
         "svg.timeline .cap{stroke:#b71c1c;stroke-width:1.6}"
         "svg.timeline .ended line,svg.timeline .legend-ended{stroke:#000;stroke-width:2}"
         "svg.timeline .anomaly .bar{stroke:#000;stroke-width:2}"
         "svg.timeline .marker polygon,svg.timeline .legend-marker polygon{fill:#ffd54f;stroke:#000}"
         "svg.timeline .marker text,svg.timeline .legend-marker text,svg.timeline .anomaly-name{font-weight:bold}"
         "svg.timeline .attempt{cursor:pointer;scroll-margin-top:60px}"
         "svg.timeline .attempt:target .bar{stroke:#0047b3;stroke-width:3}"
         "svg.timeline .attempt:focus{outline:none}"
         "svg.timeline .attempt:focus .bar,svg.timeline .attempt:hover .bar{stroke:#0047b3;stroke-width:3}"
         "svg.timeline .fault line,svg.timeline .legend-fault{stroke:#6a1b9a;stroke-dasharray:2 2}"
         "svg.timeline .fault text{fill:#6a1b9a}"
         "</style>";
}

// The hatching of a bar that got an error status (a pattern, so it shows in grey print too).
std::string hatch_pattern(const std::string& id) {
  return "<defs><pattern" + attr("id", id) +
         " width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
         "<rect width=\"4\" height=\"4\" fill=\"#ffcdd2\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"4\" "
         "stroke=\"#b71c1c\" stroke-width=\"2\"/></pattern></defs>";
}

// The bar's shape, by how the attempt ended: solid (2xx), hatched with an "x" cap (an error status), or
// dashed to the right edge with a "?" (no answer).
std::string bar(const Op& op, const Moments& m, double y, const std::string& hatch_id) {
  const double x = m.left(op.start) + m.gap();
  const double top = y + kBarTop, mid = top + kBarHeight / 2;
  if (op.open_ended()) {
    std::string out = "<rect class=\"bar bar-unknown\" x=\"" + one_decimal(x) + "\" y=\"" + one_decimal(top) + "\" width=\"" +
                      one_decimal(kPlotRight - x) + "\" height=\"" + one_decimal(kBarHeight) + "\"/>";
    out += "<text class=\"open-end\" x=\"" + one_decimal(kPlotRight + 3) + "\" y=\"" + one_decimal(top + kBarHeight) + "\">?</text>";
    if (op.ended) {
      const double tick = m.middle(m.of(*op.ended));
      out += "<g class=\"ended\"><title>server ended it: " +
             xml_escape(op.ended->response ? status_line(op.ended->response->status) : op.ended->error) +
             "</title><line x1=\"" + one_decimal(tick) + "\" y1=\"" + one_decimal(top - 3) + "\" x2=\"" + one_decimal(tick) + "\" y2=\"" +
             one_decimal(top + kBarHeight + 3) + "\"/></g>";
    }
    return out;
  }
  const double x2 = std::max(x + 2, m.right(op.end) - m.gap());
  const bool ok = op.completion->type == EventType::Ok;
  std::string out = "<rect class=\"bar " + std::string(ok ? "bar-ok" : "bar-fail") + "\"" +
                    (ok ? "" : attr("fill", "url(#" + hatch_id + ")")) + " x=\"" + one_decimal(x) + "\" y=\"" + one_decimal(top) +
                    "\" width=\"" + one_decimal(x2 - x) + "\" height=\"" + one_decimal(kBarHeight) + "\"/>";
  if (!ok)
    out += "<path class=\"cap\" d=\"M" + one_decimal(x2 - 3) + " " + one_decimal(mid - 3) + "L" + one_decimal(x2 + 3) + " " + one_decimal(mid + 3) +
           "M" + one_decimal(x2 - 3) + " " + one_decimal(mid + 3) + "L" + one_decimal(x2 + 3) + " " + one_decimal(mid - 3) + "\"/>";
  return out;
}

// What the shapes mean, in one row: each item a small shape and its words.
std::string legend(double y, const std::string& hatch_id) {
  const std::string top = one_decimal(y - 8), bottom = one_decimal(y + 1);
  std::string out = "<g class=\"legend\" aria-hidden=\"true\">";
  double x = kPlotLeft;
  auto words = [&](double shape_width, const std::string& text) {
    out += "<text x=\"" + one_decimal(x + shape_width + 4) + "\" y=\"" + one_decimal(y) + "\">" + text + "</text>";
    x += shape_width + 4 + kCharWidth * static_cast<double>(text.size()) + 14;
  };
  out += "<rect class=\"legend-ok\" x=\"" + one_decimal(x) + "\" y=\"" + top + "\" width=\"22\" height=\"9\"/>";
  words(22, "answered 2xx");
  out += "<rect class=\"legend-fail\"" + attr("fill", "url(#" + hatch_id + ")") + " x=\"" + one_decimal(x) + "\" y=\"" + top +
         "\" width=\"22\" height=\"9\"/><path class=\"cap\" d=\"M" + one_decimal(x + 19) + " " + one_decimal(y - 6.5) + "L" +
         one_decimal(x + 25) + " " + one_decimal(y - 0.5) + "M" + one_decimal(x + 19) + " " + one_decimal(y - 0.5) + "L" + one_decimal(x + 25) + " " +
         one_decimal(y - 6.5) + "\"/>";
  words(26, "error status");
  out += "<rect class=\"legend-unknown\" x=\"" + one_decimal(x) + "\" y=\"" + top +
         "\" width=\"30\" height=\"9\"/><line class=\"legend-ended\" x1=\"" + one_decimal(x + 15) + "\" y1=\"" + one_decimal(y - 11) +
         "\" x2=\"" + one_decimal(x + 15) + "\" y2=\"" + one_decimal(y + 4) + "\"/><text x=\"" + one_decimal(x + 33) + "\" y=\"" + one_decimal(y) +
         "\">?</text>";
  words(38, "no response; | the server's end");
  out += "<g class=\"legend-marker\"><polygon points=\"" + one_decimal(x) + "," + bottom + " " + one_decimal(x + 6) + "," + one_decimal(y - 9) +
         " " + one_decimal(x + 12) + "," + bottom + "\"/><text x=\"" + one_decimal(x + 6) + "\" y=\"" + one_decimal(y) +
         "\" text-anchor=\"middle\" font-size=\"8\">!</text></g>";
  words(12, "anomaly");
  out += "<line class=\"legend-fault\" x1=\"" + one_decimal(x + 2) + "\" y1=\"" + one_decimal(y - 10) + "\" x2=\"" + one_decimal(x + 2) +
         "\" y2=\"" + one_decimal(y + 3) + "\"/>";
  words(4, "fault: crash, restart, clock");
  return out + "</g>";
}

}  // namespace

std::vector<TimelineMark> marks_for(const std::vector<Finding>& findings, const std::vector<Event>& events,
                                    int check_stage) {
  std::vector<TimelineMark> marks;
  for (const auto& f : findings) {
    const std::string anomaly(name(f.anomaly));
    const int fixed_by = fixing_stage(f, check_stage);
    if (!f.ops.empty()) {
      for (auto op : f.ops) marks.push_back({op, anomaly, f.what, fixed_by});
      continue;
    }
    if (f.intent.empty()) continue;
    for (const auto& e : events)
      if (e.type == EventType::Invoke && e.intent == f.intent) marks.push_back({e.op, anomaly, f.what, fixed_by});
  }
  return marks;
}

std::string timeline_svg(const std::vector<Event>& events, const std::vector<TimelineMark>& marks,
                         const std::string& id_prefix) {
  // Which attempts are there, and how each ended?
  std::map<std::int64_t, Op> by_op;
  std::vector<const Event*> faults;
  for (const auto& e : events) {
    if (e.type == EventType::Fault) faults.push_back(&e);
    if (e.type == EventType::Invoke) by_op[e.op].invoke = &e;
    if (e.type == EventType::Ok || e.type == EventType::Fail || e.type == EventType::Unknown)
      by_op[e.op].completion = &e;
    if (e.type == EventType::Ended) by_op[e.op].ended = &e;
  }
  std::vector<Op*> ops;  // in the order they were sent
  for (auto& [number, op] : by_op)
    if (op.invoke) ops.push_back(&op);
  std::stable_sort(ops.begin(), ops.end(), [](const Op* a, const Op* b) { return a->invoke->t_ms < b->invoke->t_ms; });
  const Moments moments(events);

  // Which band and lane does each attempt take? A lane is free again once its last attempt has ended, in
  // an earlier moment (an open-ended one never ends).
  std::vector<Band> bands;
  for (Op* op : ops) {
    op->start = moments.of(*op->invoke);
    op->end = op->completion ? std::max(op->start, moments.of(*op->completion)) : op->start;
    auto band = std::find_if(bands.begin(), bands.end(), [&](const Band& b) { return b.key == op->invoke->key; });
    if (band == bands.end()) band = bands.insert(bands.end(), Band{op->invoke->key, {}, 0, 0});
    op->band = static_cast<std::size_t>(band - bands.begin());
    band->attempts++;
    auto lane = std::find_if(band->lane_end.begin(), band->lane_end.end(),
                             [&](const auto& end) { return end && *end < op->start; });
    if (lane == band->lane_end.end()) lane = band->lane_end.insert(band->lane_end.end(), std::nullopt);
    op->lane = static_cast<std::size_t>(lane - band->lane_end.begin());
    *lane = op->open_ended() ? std::nullopt : std::optional<std::size_t>(op->end);
  }
  const double header = faults.empty() ? kNoFaultsHeight : kFaultsHeight;
  double y = header;
  for (auto& b : bands) {
    b.top = y;
    y += kLaneHeight * static_cast<double>(b.lane_end.size());
  }
  const double lanes_bottom = y, height = y + kFooterHeight;

  // Which attempts are marked, and which of them came first?
  std::map<std::int64_t, std::vector<const TimelineMark*>> marks_of;
  for (const auto& mark : marks)
    if (by_op.count(mark.op) && by_op[mark.op].invoke) marks_of[mark.op].push_back(&mark);
  std::optional<std::int64_t> first_violation;
  for (const Op* op : ops)
    if (!first_violation && marks_of.count(op->invoke->op)) first_violation = op->invoke->op;

  const std::string hatch_id = id_prefix + "hatch";
  std::string out =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"" + one_decimal(kWidth) + "\" height=\"" +
      one_decimal(height) + "\" viewBox=\"0 0 " + one_decimal(kWidth) + " " + one_decimal(height) + "\" role=\"group\"" +
      attr("aria-label", "timeline of " + std::to_string(ops.size()) + " attempts under " +
                             std::to_string(bands.size()) + " keys, " + std::to_string(marks_of.size()) + " marked") +
      ">" + style() + hatch_pattern(hatch_id);
  if (ops.empty())
    out += "<text x=\"" + one_decimal(kPlotLeft) + "\" y=\"" + one_decimal(header + 10) + "\">no request was recorded</text>";

  // The key bands: a shade on every other one, a rule above each, the key and its count of attempts.
  for (std::size_t b = 0; b < bands.size(); ++b) {
    const double h = kLaneHeight * static_cast<double>(bands[b].lane_end.size());
    const std::string label = bands[b].key ? cut(*bands[b].key, kKeyLabelChars) : "no key";
    out += "<g class=\"key-band\"" + attr("data-key", bands[b].key.value_or("")) + "><title>" +
           xml_escape(key_text(bands[b].key) + ": " + std::to_string(bands[b].attempts) + " attempts") + "</title>";
    if (b % 2 == 1)
      out += "<rect class=\"band-shade\" x=\"0\" y=\"" + one_decimal(bands[b].top) + "\" width=\"" + one_decimal(kWidth) +
             "\" height=\"" + one_decimal(h) + "\"/>";
    out += "<line class=\"band-rule\" x1=\"0\" y1=\"" + one_decimal(bands[b].top) + "\" x2=\"" + one_decimal(kWidth) + "\" y2=\"" +
           one_decimal(bands[b].top) + "\"/>";
    out += "<text x=\"4\" y=\"" + one_decimal(bands[b].top + 11) + "\">" + xml_escape(label) + "</text>";
    out += "<text x=\"4\" y=\"" + one_decimal(bands[b].top + 22) + "\">" + std::to_string(bands[b].attempts) +
           (bands[b].attempts == 1 ? " attempt" : " attempts") + "</text></g>";
  }

  // The faults: a line across every lane, its label in one of the two header rows.
  for (std::size_t k = 0; k < faults.size(); ++k) {
    const Event& f = *faults[k];
    const double x = moments.left(moments.of(f));
    out += "<g class=\"fault\"" + attr("data-fault", f.fault) + "><title>" +
           xml_escape(f.fault + ": " + f.detail + " (at " + one_decimal(f.t_ms - moments.first_ms()) + " ms)") + "</title>";
    out += "<line x1=\"" + one_decimal(x) + "\" y1=\"" + one_decimal(k % 2 == 0 ? 4.0 : 17.0) + "\" x2=\"" + one_decimal(x) + "\" y2=\"" +
           one_decimal(lanes_bottom) + "\"/>";
    out += "<text x=\"" + one_decimal(x + 3) + "\" y=\"" + one_decimal(k % 2 == 0 ? 13.0 : 26.0) + "\">" + xml_escape(fault_label(f)) +
           "</text></g>";
  }

  // The attempts, in the order they were sent (the order a screen reader and the Tab key visit them).
  for (const Op* op : ops) {
    const std::int64_t number = op->invoke->op;
    const double lane_top = bands[op->band].top + kLaneHeight * static_cast<double>(op->lane);
    const std::string status =
        op->completion && op->completion->response ? std::to_string(op->completion->response->status) : "unknown";
    const std::string outcome = !op->completion ? "unknown" : std::string(to_string(op->completion->type));
    auto marked = marks_of.find(number);
    std::string aria = describe(*op), title = aria + "\n" + times_text(*op, moments.first_ms());
    std::string anomalies;  // the marks' names, once each, in order
    if (marked != marks_of.end()) {
      for (const TimelineMark* mark : marked->second) {
        if ((" " + anomalies + " ").find(" " + mark->anomaly + " ") == std::string::npos)
          anomalies += (anomalies.empty() ? "" : " ") + mark->anomaly;
        title += "\n! " + mark->anomaly + ": " + mark->text +
                 (mark->fixed_by > 0 ? " (stage " + std::to_string(mark->fixed_by) + " fixes it)" : " (the contract)");
      }
      aria += ". Anomaly: " + anomalies;
    }
    out += "<g class=\"attempt" + std::string(anomalies.empty() ? "" : " anomaly") + "\"";
    if (first_violation == number) out += attr("id", id_prefix + "first-violation");
    out += " data-op=\"" + std::to_string(number) + "\"" + attr("data-key", op->invoke->key.value_or("")) +
           " data-status=\"" + status + "\" data-outcome=\"" + outcome + "\"";
    if (!op->completion) out += " data-running=\"true\"";
    if (!anomalies.empty()) out += attr("data-anomaly", anomalies);
    out += " tabindex=\"0\" role=\"button\"" + attr("aria-label", aria) + "><title>" + xml_escape(title) + "</title>";
    out += bar(*op, moments, lane_top, hatch_id);
    double text_x = moments.left(op->start) + moments.gap();
    if (!anomalies.empty()) {
      out += "<g class=\"marker\"><polygon points=\"" + one_decimal(text_x) + "," + one_decimal(lane_top + 11) + " " + one_decimal(text_x + 6) +
             "," + one_decimal(lane_top + 1) + " " + one_decimal(text_x + 12) + "," + one_decimal(lane_top + 11) + "\"/><text x=\"" +
             one_decimal(text_x + 6) + "\" y=\"" + one_decimal(lane_top + 10) +
             "\" text-anchor=\"middle\" font-size=\"8\">!</text></g>";
      text_x += 14;
    }
    out += "<text class=\"status\" x=\"" + one_decimal(text_x) + "\" y=\"" + one_decimal(lane_top + 10) + "\">" +
           xml_escape(status_label(*op));
    if (!anomalies.empty()) out += "<tspan class=\"anomaly-name\" dx=\"5\">" + xml_escape(anomalies) + "</tspan>";
    out += "</text></g>";
  }

  // The span of time the columns stand for, and what the shapes mean.
  const double span = moments.span_ms();
  out += "<text class=\"span\" x=\"" + one_decimal(kPlotLeft) + "\" y=\"" + one_decimal(lanes_bottom + 14) +
         "\">0 ms</text><text class=\"span\" x=\"" + one_decimal((kPlotLeft + kPlotRight) / 2) + "\" y=\"" +
         one_decimal(lanes_bottom + 14) +
         "\" text-anchor=\"middle\">left to right: the order things happened, one column per moment (not to "
         "scale)</text><text class=\"span\" x=\"" +
         one_decimal(kPlotRight) + "\" y=\"" + one_decimal(lanes_bottom + 14) + "\" text-anchor=\"end\">" + one_decimal(span) + " ms</text>";
  out += legend(lanes_bottom + 34, hatch_id);
  return out + "</svg>";
}

}  // namespace grader
