// report_html.cc: see report_html.h. The page, top to bottom: the heading, a table of contents, the check
// matrix, the failed checks (grouped by server, each with its findings, its timeline and the requests the
// timeline marks), the day.
#include "grader/report/report_html.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "grader/base/stage_binaries.h"
#include "grader/base/xml_escape.h"
#include "grader/demo/demo_scene.h"
#include "grader/report/day_chart_svg.h"
#include "grader/report/report.h"
#include "grader/report/timeline_svg.h"

namespace grader {
namespace {

// A check that sent more attempts than this has only some of its keys drawn (events_shown): a burst check
// sends hundreds, and one key's burst shows its anomaly as well as all of them would.
constexpr std::size_t kAttemptsDrawn = 40;
// Marked attempts whose request and response are written out; the timeline shows all of them.
constexpr std::size_t kAttemptsShown = 8;
// A body longer than this is cut in the page (its full length is said).
constexpr std::size_t kBodyShown = 2000;

constexpr const char* kStyle = R"(
body{font:15px/1.45 system-ui,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:1100px;padding:0 16px 48px}
h1{font-size:1.6em;margin:.6em 0 .2em}h2{margin-top:1.8em;border-bottom:2px solid #333}h3{margin-top:1.6em}
code,pre{font:13px/1.35 ui-monospace,monospace}
pre{background:#f6f6f6;border:1px solid #ddd;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}
thead th{background:#eee;position:sticky;top:0}
.table-box{overflow-x:auto}
#matrix{font-size:13px}#matrix code{font-size:12px}
td[data-verdict]{white-space:nowrap;font-weight:bold;padding:3px 4px}
td[data-verdict=pass]{background:#e8f5e9;color:#1b5e20}
td[data-verdict=fail]{background:#ffebee;color:#b71c1c}
td[data-verdict=skip]{background:#f3f3f3;color:#555;font-weight:normal}
td[data-verdict] a{color:inherit}
tr.stage-start>*{border-top:3px solid #555}
.check-title{font-size:.85em;color:#444;font-weight:normal}
.failed-check{border:1px solid #bbb;border-left:6px solid #b71c1c;padding:4px 14px 10px;margin:18px 0}
.failed-check h4{margin:.5em 0;font-size:1.05em}
.finding{margin:.4em 0}.finding .because{color:#333}
.timeline-box{overflow-x:auto;border:1px solid #ddd;margin:8px 0}
h5{font-size:1em;margin:1em 0 .3em}.exchange p{margin:.2em 0;font-weight:bold;font-size:.9em}
.attempt-detail{margin:6px 0}.attempt-detail summary{cursor:pointer}
.exchange{display:grid;grid-template-columns:1fr 1fr;gap:8px}
@media (max-width:800px){.exchange{grid-template-columns:1fr}}
a.first-violation{display:inline-block;margin:4px 0;font-weight:bold}
.verdict-line{font-weight:bold}
#day dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}#day dd{margin:0}
#day-damage td{text-align:right}#day-damage td.server-verdict{text-align:left}
:target{outline:3px solid #0047b3;outline-offset:2px}
)";

std::string esc(const std::string& text) { return xml_escape(text); }

// An id from a server's label and a check's name: letters, digits, '.', '_' and '-' only.
std::string anchor(const std::string& label, const std::string& check) {
  std::string id = label + "--" + check;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '-';
  return id;
}

std::string verdict_word(Verdict v) { return v == Verdict::Pass ? "pass" : v == Verdict::Fail ? "fail" : "skip"; }

std::string shown_body(const std::string& body) {
  if (body.size() <= kBodyShown) return body;
  return body.substr(0, kBodyShown) + "... (" + std::to_string(body.size()) + " bytes)";
}

std::string request_text(const Event& invoke) {
  std::string text = invoke.request.method + " " + invoke.request.target + "\n";
  for (const auto& [name, value] : invoke.request.headers)
    text += name + ": " + redacted_header_value(name, value) + "\n";
  return text + "\n" + shown_body(invoke.request.body);
}

std::string response_text(const Event* completion, const Event* ended) {
  if (!completion) return "no answer yet (the request was still running)";
  if (!completion->response) {
    std::string text = "no response: " + completion->error;
    if (ended)
      text += ended->response ? "\n\nthe server ended it later: " + status_line(ended->response->status)
                              : "\n\nthen: " + ended->error;
    return text;
  }
  std::string text = status_line(completion->response->status) + "\n";
  for (const auto& [name, value] : completion->response->headers) text += name + ": " + value + "\n";
  return text + "\n" + shown_body(completion->response->body);
}

// The events the timeline draws: all of them, unless the check sent more than kAttemptsDrawn attempts; then
// whole keys, those of its marked attempts first, up to about kAttemptsDrawn attempts, and every fault.
std::vector<Event> events_shown(const std::vector<Event>& events, const std::vector<TimelineMark>& marks,
                                std::string* note) {
  using Key = std::optional<std::string>;
  std::vector<Key> keys;  // in the order first sent
  std::map<Key, std::size_t> attempts;
  std::map<std::int64_t, Key> key_of_op;
  for (const auto& e : events)
    if (e.type == EventType::Invoke) {
      key_of_op[e.op] = e.key;
      if (attempts[e.key]++ == 0) keys.push_back(e.key);
    }
  if (key_of_op.size() <= kAttemptsDrawn) return events;
  std::vector<Key> order;  // marked keys first, each in the order first sent
  for (const auto& key : keys)
    for (const auto& m : marks)
      if (key_of_op.count(m.op) && key_of_op[m.op] == key) {
        order.push_back(key);
        break;
      }
  const std::size_t marked_keys = order.size();
  for (const auto& key : keys)
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
  std::vector<Key> kept;
  std::size_t drawn = 0;
  for (const auto& key : order) {
    if (!kept.empty() && drawn + attempts[key] > kAttemptsDrawn) break;
    kept.push_back(key);
    drawn += attempts[key];
  }
  *note = "This check sent " + std::to_string(key_of_op.size()) + " attempts under " + std::to_string(keys.size()) +
          " keys; the timeline draws " + std::to_string(drawn) + " of them, under " +
          (marked_keys > 0 ? "the first keys of its marked attempts." : "its first keys.");
  std::vector<Event> out;
  for (const auto& e : events)
    if (e.type == EventType::Fault ||
        (key_of_op.count(e.op) && std::find(kept.begin(), kept.end(), key_of_op[e.op]) != kept.end()))
      out.push_back(e);
  return out;
}

std::string finding_html(const Finding& f, const Check& check) {
  const AnomalyInfo& a = info(f.anomaly);
  const int fixed_by = fixing_stage(f, check.stage);
  std::string out = "<li class=\"finding\" data-anomaly=\"" + esc(std::string(a.name)) + "\"><strong>" +
                    esc(std::string(a.name)) + "</strong>: " + esc(f.what) + "<br><span class=\"because\">because " +
                    esc(std::string(a.because)) + " <span class=\"fixed-by\">(" +
                    (fixed_by > 0 ? "stage " + std::to_string(fixed_by) + " fixes it" : "see the contract") +
                    ")</span></span>";
  // A finding on the timeline shows its requests below it; one that is not (an operation's shape) here.
  const bool on_timeline = !f.ops.empty() || !f.intent.empty();
  if (!on_timeline && !f.sent.empty()) out += "<p>sent:</p><pre>" + esc(f.sent) + "</pre>";
  if (!on_timeline && !f.received.empty()) out += "<p>got:</p><pre>" + esc(f.received) + "</pre>";
  if (!f.expected.empty()) out += "<br>expected: " + esc(f.expected);
  if (!f.hint.empty()) out += "<br>hint: " + esc(f.hint);
  return out + "</li>";
}

std::string failed_check_html(const GradedServer& server, const CheckOutcome& o, const std::string& book) {
  const Check& check = *o.check;
  const std::string id = anchor(server.label, check.name), prefix = id + "-";
  auto history = server.histories.find(check.name);
  const std::vector<Event> none;
  const std::vector<Event>& events = history == server.histories.end() ? none : history->second;
  const auto marks = marks_for(o.findings, events, check.stage);
  std::string note;
  const std::vector<Event> shown = events_shown(events, marks, &note);
  const std::string svg = timeline_svg(shown, marks, prefix);
  const bool has_violation = svg.find("id=\"" + prefix + "first-violation\"") != std::string::npos;

  std::string out = "<section class=\"failed-check\" id=\"" + id + "\" data-check=\"" + esc(check.name) +
                    "\" data-stage=\"" + esc(server.label) + "\"><h4>FAIL " + esc(server.label) + ": <code>" +
                    esc(check.name) + "</code> " + esc(check.title) + "</h4>";
  out += has_violation ? "<a class=\"first-violation\" href=\"#" + prefix +
                             "first-violation\">Jump to the first "
                             "violation in the timeline</a>"
                       : "<a class=\"first-violation\" href=\"#" + prefix +
                             "findings\">No single request shows it: "
                             "read the findings</a>";
  out += "<ol class=\"findings\" id=\"" + prefix + "findings\">";
  for (std::size_t k = 0; k < o.findings.size(); ++k) {
    if (k == kFindingsShown)
      out += "</ol><details><summary>" + std::to_string(o.findings.size() - k) +
             " more findings</summary><ol start=\"" + std::to_string(k + 1) + "\">";
    out += finding_html(o.findings[k], check);
  }
  out += o.findings.size() > kFindingsShown ? "</ol></details>" : "</ol>";
  bool some_without_hint = o.findings.empty();
  for (const auto& f : o.findings) some_without_hint = some_without_hint || f.hint.empty();
  if (some_without_hint) out += "<p><strong>hint:</strong> " + esc(check.hint) + "</p>";
  const std::string teaches = esc(reference_text(check.teaches));
  out += book.empty() ? "<p><strong>read:</strong> " + teaches + "</p>"
                      : "<p><strong>read:</strong> <a class=\"teaches\" href=\"" +
                            esc(book_href(check.teaches, book)) + "\">" + teaches + "</a></p>";
  if (!o.note.empty()) out += "<pre>" + esc(o.note) + "</pre>";
  if (!note.empty()) out += "<p>" + esc(note) + "</p>";
  out += "<div class=\"timeline-box\">" + svg + "</div>";

  // The marked attempts, as sent and as answered.
  std::vector<std::int64_t> marked;  // those the timeline draws
  for (const auto& m : marks)
    if (std::find(marked.begin(), marked.end(), m.op) == marked.end() &&
        std::any_of(shown.begin(), shown.end(), [&](const Event& e) { return e.op == m.op; }))
      marked.push_back(m.op);
  std::sort(marked.begin(), marked.end());
  if (!marked.empty()) out += "<h5>The marked attempts</h5>";
  for (std::size_t k = 0; k < std::min(marked.size(), kAttemptsShown); ++k) {
    const Event *invoke = nullptr, *completion = nullptr, *ended = nullptr;
    for (const auto& e : events) {
      if (e.op != marked[k]) continue;
      if (e.type == EventType::Invoke) invoke = &e;
      if (e.type == EventType::Ok || e.type == EventType::Fail || e.type == EventType::Unknown) completion = &e;
      if (e.type == EventType::Ended) ended = &e;
    }
    if (!invoke) continue;
    out += "<details class=\"attempt-detail\" id=\"" + prefix + "op-" + std::to_string(marked[k]) + "\"" +
           (k == 0 ? " open" : "") + "><summary>op " + std::to_string(marked[k]) + " (" + esc(invoke->intent) +
           "): " + esc(invoke->request.method + " " + invoke->request.target) + " \u2192 " +
           esc(completion && completion->response ? status_line(completion->response->status) : "no response") +
           "</summary><div class=\"exchange\"><div><p>request</p><pre>" + esc(request_text(*invoke)) +
           "</pre></div><div><p>response</p><pre>" + esc(response_text(completion, ended)) +
           "</pre></div></div></details>";
  }
  if (marked.size() > kAttemptsShown)
    out += "<p>" + std::to_string(marked.size() - kAttemptsShown) + " more marked attempts: see the timeline.</p>";
  return out + "</section>";
}

std::string matrix_html(const HtmlReport& r) {
  std::string out =
      "<table id=\"matrix\"><caption>Each check (a row) on each server (a column): PASS, FAIL or "
      "SKIP. A FAIL links to its timeline.</caption><thead><tr><th scope=\"col\">check</th>";
  for (const auto& s : r.servers)
    out += "<th scope=\"col\"><abbr title=\"" + esc(s.binary) + "\">" + esc(s.label) + "</abbr></th>";
  out += "</tr></thead><tbody>";
  int last_stage = -1;
  for (const Check* check : r.checks) {
    out += std::string("<tr") + (check->stage != last_stage ? " class=\"stage-start\"" : "") + " data-check=\"" +
           esc(check->name) + "\"><th scope=\"row\"><code>" + esc(check->name) +
           "</code><br><span class=\"check-title\">" + esc(check->title) + "</span></th>";
    last_stage = check->stage;
    for (const auto& s : r.servers) {
      auto o =
          std::find_if(s.outcomes.begin(), s.outcomes.end(), [&](const CheckOutcome& x) { return x.check == check; });
      if (!s.built)
        out += "<td data-verdict=\"skip\">not built</td>";
      else if (!s.error.empty())
        out += "<td data-verdict=\"fail\"><a href=\"#" + anchor(s.label, "error") + "\">did not start</a></td>";
      else if (o == s.outcomes.end())
        out += "<td data-verdict=\"skip\">not run</td>";
      else if (o->verdict == Verdict::Fail)
        out += "<td data-verdict=\"fail\"><a href=\"#" + anchor(s.label, check->name) + "\">\u2717 FAIL</a></td>";
      else
        out += "<td data-verdict=\"" + verdict_word(o->verdict) + "\"" +
               (o->note.empty() ? "" : " title=\"" + esc(o->note) + "\"") + ">" +
               (o->verdict == Verdict::Pass ? "\u2713 PASS" : "\u2013 SKIP") + "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody><tfoot><tr><th scope=\"row\">failed</th>";
  for (const auto& s : r.servers) {
    auto failed = std::count_if(s.outcomes.begin(), s.outcomes.end(),
                                [](const CheckOutcome& o) { return o.verdict == Verdict::Fail; });
    out += "<td>" +
           (s.built && s.error.empty() ? std::to_string(failed) + " of " + std::to_string(s.outcomes.size())
                                       : std::string("-")) +
           "</td>";
  }
  return out + "</tr></tfoot></table>";
}

std::string day_html(const DayReport& day) {
  std::string out = "<section id=\"day\"><h2>The day</h2><p>" + esc(day.log) + ": " + std::to_string(day.intents) +
                    " intents, " + std::to_string(day.sends) +
                    " sends, replayed on each server (docs/teach/the-day.md \"The day\"). Each column counts one kind of damage the "
                    "audit found; 0 everywhere is a clean day.</p>";
  out +=
      "<table id=\"day-damage\"><caption>The day's damage per server</caption><thead><tr><th scope=\"col\">server</th>"
      "<th scope=\"col\">sends/s</th>";
  for (Damage d : kAllDamage)
    out += "<th scope=\"col\"><abbr title=\"" + esc(std::string(describe(d))) + "\">" +
           esc(std::string(column_name(d))) + "</abbr></th>";
  out += "<th scope=\"col\">verdict</th></tr></thead><tbody>";
  for (const auto& row : day.rows) {
    out += "<tr data-server=\"" + esc(row.server) + "\"><th scope=\"row\">" + esc(row.server) + "</th>";
    if (!row.error.empty()) {
      out += "<td colspan=\"" + std::to_string(kAllDamage.size() + 2) +
             "\" class=\"server-verdict\">replay failed: " + esc(row.error) + "</td></tr>";
      continue;
    }
    out += "<td>" + std::to_string(row.seconds > 0 ? static_cast<long long>(row.sends / row.seconds) : 0) + "</td>";
    for (Damage d : kAllDamage)
      out += "<td data-damage=\"" + esc(std::string(column_name(d))) + "\">" + std::to_string(row.damage.count(d)) +
             "</td>";
    out += std::string("<td class=\"server-verdict\">") + (row.damage.clean() ? "no damage" : "DAMAGE") + "</td></tr>";
  }
  out += "</tbody></table><dl>";
  for (Damage d : kAllDamage)
    out +=
        "<dt><code>" + esc(std::string(column_name(d))) + "</code></dt><dd>" + esc(std::string(describe(d))) + "</dd>";
  return out + "</dl>" + day_chart_svg(day) + "</section>";
}

}  // namespace

GradedServer graded_server(std::string label, std::string binary, std::vector<CheckOutcome> outcomes,
                           const History& history) {
  GradedServer server{std::move(label), std::move(binary), true, "", std::move(outcomes), {}};
  for (const auto& o : server.outcomes)
    if (o.verdict == Verdict::Fail) server.histories[o.check->name] = history.of_check(o.check->name);
  return server;
}

std::string report_html(const HtmlReport& r) {
  std::size_t failed = 0;
  for (const auto& s : r.servers)
    for (const auto& o : s.outcomes) failed += o.verdict == Verdict::Fail;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
      esc(r.title) + "</title><style>" + kStyle + "</style></head><body><header><h1>" + esc(r.title) + "</h1>";
  for (const auto& line : r.about) out += "<p>" + esc(line) + "</p>";
  out += "</header><nav aria-label=\"contents\"><ul>";
  if (!r.servers.empty())
    out += "<li><a href=\"#checks\">The checks</a></li><li><a href=\"#failed\">The failed checks (" +
           std::to_string(failed) + ")</a></li>";
  if (r.day) out += "<li><a href=\"#day\">The day</a></li>";
  out += "</ul></nav><main>";

  if (!r.servers.empty()) {
    out += "<section id=\"checks\"><h2>The checks</h2>";
    if (r.staircase)
      out += r.staircase->empty()
                 ? "<p class=\"verdict-line\">The staircase holds: each stage passes its own and earlier checks and "
                   "fails a check of each later stage; each wrong turn fails the check named for it.</p>"
                 : "<p class=\"verdict-line\">STAIRCASE BROKEN:</p><ul>";
    if (r.staircase)
      for (const auto& problem : *r.staircase) out += "<li><pre>" + esc(problem) + "</pre></li>";
    if (r.staircase && !r.staircase->empty()) out += "</ul>";
    out += "<div class=\"table-box\">" + matrix_html(r) + "</div></section>";

    out +=
        "<section id=\"failed\"><h2>The failed checks</h2><p>Each failed check shows its findings, a timeline of "
        "every request it sent (one band per Idempotency-Key, one lane per connection; a solid bar was answered "
        "2xx, a hatched bar with \u00d7 got an error status, a dashed bar ending in ? got no answer; "
        "\u25b2! marks an attempt a finding is about) and those attempts as sent and answered.</p>";
    if (failed == 0) out += "<p>None: every check passed.</p>";
    for (const auto& s : r.servers) {
      if (!s.error.empty())
        out += "<section class=\"server-error\" id=\"" + anchor(s.label, "error") + "\"><h3>" + esc(s.label) + ": " +
               esc(s.binary) + " did not start</h3><pre>" + esc(s.error) + "</pre></section>";
      const auto n = std::count_if(s.outcomes.begin(), s.outcomes.end(),
                                   [](const CheckOutcome& o) { return o.verdict == Verdict::Fail; });
      if (n == 0) continue;
      out += "<h3>" + esc(s.label) + ": " + esc(s.binary) + " (" + std::to_string(n) + " failed)</h3>";
      for (const auto& o : s.outcomes)
        if (o.verdict == Verdict::Fail) out += failed_check_html(s, o, r.book);
    }
    out += "</section>";
  }
  if (r.day) out += day_html(*r.day);
  return out + "</main></body></html>\n";
}

std::string local_book_url() {
  std::error_code error;
  const auto book = std::filesystem::absolute(default_book_dir(), error);
  if (error || !std::filesystem::is_regular_file(book / "index.html", error)) return "";
  // A file:// URL: every byte but the unreserved ones and '/' percent-encoded (a space, '#', '%' in a path).
  std::string url = "file://";
  for (unsigned char c : book.string() + "/") {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      url += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      url += '%';
      url += kHex[c >> 4];
      url += kHex[c & 15];
    }
  }
  return url;
}

bool write_report_html(const std::string& path, const HtmlReport& report) {
  std::ofstream out(path, std::ios::binary);
  out << report_html(report);
  if (!out) std::cerr << "grader: cannot write " << path << "\n";
  return static_cast<bool>(out);
}

}  // namespace grader
