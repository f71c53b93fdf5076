// report.cc: see report.h.
#include "grader/report/report.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "grader/wire/openapi_operations.h"

namespace grader {
namespace {

const char* paint(bool colour, const char* code) { return colour ? code : ""; }
constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kDim = "\033[2m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kReset = "\033[0m";

std::string indent(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string out, line;
  bool first = true;
  while (std::getline(lines, line)) {
    out += (first ? "" : "\n" + prefix) + line;
    first = false;
  }
  return out;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fs", s);
  return buf;
}

// The line naming the openapi.yaml operation a finding is about, or "" if it names none. A finding about an
// operation (no one request shows it) names the operation in the line too; one that shows its request
// names only the operationId, since the request line is printed just above.
std::string contract_line(const Finding& f) {
  if (!f.operation.empty()) {
    const std::string id = openapi_operation(f.operation);
    return "  contract: " + f.operation + (id.empty() ? "" : " (openapi.yaml operation " + id + ")") + "\n";
  }
  const std::string id = openapi_operation(f.sent);
  return id.empty() ? "" : "  contract: openapi.yaml operation " + id + "\n";
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool use_colour(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  return isatty(fd) && !(no_colour && *no_colour);
}

std::string repeat_for(const std::string& repeat_command, const std::string& check_name) {
  return repeat_command + " --check " + shell_quote(check_name);
}

std::string check_line(const CheckOutcome& o, bool colour) {
  const char* word = o.verdict == Verdict::Pass ? "PASS" : o.verdict == Verdict::Fail ? "FAIL" : "SKIP";
  const char* hue = o.verdict == Verdict::Pass ? kGreen : o.verdict == Verdict::Fail ? kRed : kYellow;
  std::string name = o.check->name.substr(o.check->name.find('.') + 1);
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %s%s%s  stage%d  %-30s %s%s%s  %s", paint(colour, hue), word, paint(colour, kReset),
                o.check->stage, name.c_str(), paint(colour, kDim), o.check->title.c_str(), paint(colour, kReset),
                seconds_text(o.seconds).c_str());
  return buf;
}

std::string describe_failure(const CheckOutcome& o, const std::string& repeat_command, bool all_findings) {
  return describe_findings(o, all_findings) + "repeat: " + repeat_for(repeat_command, o.check->name) + "\n";
}

std::string describe_findings(const CheckOutcome& o, bool all_findings) {
  std::ostringstream out;
  const std::string pad = "          ";
  const std::size_t shown = all_findings ? o.findings.size() : std::min(o.findings.size(), kFindingsShown);
  for (std::size_t i = 0; i < shown; ++i) {
    const Finding& f = o.findings[i];
    const AnomalyInfo& a = info(f.anomaly);
    out << a.name << ": " << f.what << "\n";
    out << "  because " << a.because;
    const int fixed_by = fixing_stage(f, o.check->stage);
    out << (fixed_by > 0 ? " (stage " + std::to_string(fixed_by) + " fixes it)" : " (see the contract)");
    out << "\n";
    if (!f.sent.empty()) out << "  sent:     " << indent(f.sent, pad) << "\n";
    out << contract_line(f);
    if (!f.received.empty()) out << "  got:      " << indent(f.received, pad) << "\n";
    if (!f.expected.empty()) out << "  expected: " << indent(f.expected, pad) << "\n";
    if (!f.hint.empty()) out << "  hint:     " << indent(f.hint, pad) << "\n";
  }
  if (const std::size_t cut = o.findings.size() - shown; cut > 0)
    out << "(" << cut << (cut == 1 ? " more finding" : " more findings") << " not shown: --all-findings shows them)\n";
  if (!o.before.empty()) {
    out << "balances (opening -> after):";
    for (const auto& [id, opening] : o.before) {
      auto after = o.after.find(id);
      out << "  #" << id << " " << opening << " -> "
          << (after == o.after.end() ? std::string("?") : std::to_string(after->second));
    }
    out << "\n";
  }
  if (!o.note.empty()) out << o.note << "\n";
  // A finding with a hint of its own is not about the check's lesson (a contract field, a transport fault):
  // the check's hint is for the findings without one.
  const bool some_without_hint = o.findings.empty() || std::any_of(o.findings.begin(), o.findings.end(),
                                                                   [](const Finding& f) { return f.hint.empty(); });
  if (some_without_hint) out << "hint:   " << o.check->hint << "\n";
  out << "read:   " << reference_text(o.check->teaches) << "\n";
  return out.str();
}

void TerminalReporter::started(const Check& check) {
  if (check.stage != last_stage_) {
    last_stage_ = check.stage;
    out_ << paint(colour_, kBold)
         << (check.stage == 0 ? "The HTTP contract" : "Stage " + std::to_string(check.stage))
         << paint(colour_, kReset) << "\n";
  }
  if (progress_) out_ << "  ....  " << check.name << " running\r" << std::flush;
}

void TerminalReporter::waiting(const Check& check, const std::string& what) {
  if (progress_) out_ << "\033[2K";  // the "running" line gives way, and comes back below
  out_ << "        " << check.name << ": " << what << "\n";
  if (progress_) out_ << "  ....  " << check.name << " running\r";
  out_ << std::flush;
}

void TerminalReporter::finished(const CheckOutcome& o) {
  if (progress_) out_ << "\033[2K";  // erase the "running" line
  out_ << check_line(o, colour_) << "\n";
  if (o.verdict == Verdict::Fail)
    out_ << "        " << indent(describe_failure(o, repeat_, all_findings_), "        ") << "\n";
  // A pass or a skip shows its note too: a pass the grader could not fully see says so.
  if (o.verdict != Verdict::Fail && !o.note.empty()) out_ << "        " << indent(o.note, "        ") << "\n";
  out_ << std::flush;
}

void TerminalReporter::contract_failed() {
  out_ << paint(colour_, kRed) << "The server does not speak the contract yet: fix the operation named above first."
       << paint(colour_, kReset) << " No lesson check was run.\n";
}

void print_summary(std::ostream& out, const std::vector<CheckOutcome>& outcomes, bool colour, double seconds) {
  int pass = 0, fail = 0, skip = 0;
  for (const auto& o : outcomes) (o.verdict == Verdict::Pass ? pass : o.verdict == Verdict::Fail ? fail : skip)++;
  out << (fail ? paint(colour, kRed) : paint(colour, kGreen)) << pass << " passed, " << fail << " failed, " << skip
      << " skipped" << paint(colour, kReset) << " in " << seconds_text(seconds) << "\n";
}

}  // namespace grader
