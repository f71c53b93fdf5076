// class_summary.cc: see class_summary.h. The CSV first, then the page: heading, counts, the table.
#include "grader/report/class_summary.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "grader/base/xml_escape.h"
#include "grader/report/decimal_text.h"

namespace grader {
namespace {

constexpr const char* kClassStyle = R"(
body{font:15px/1.45 system-ui,sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:1300px;
padding:0 16px 48px}
h1{font-size:1.6em;margin:.6em 0 .2em}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}
thead th{background:#eee;position:sticky;top:0}
td[data-verdict],td[data-result]{white-space:nowrap;font-weight:bold}
td[data-verdict=pass],td[data-result=pass]{background:#e8f5e9;color:#1b5e20}
td[data-verdict=fail],td[data-result=fail]{background:#ffebee;color:#b71c1c}
td[data-verdict=error]{background:#b71c1c;color:#fff}
td[data-result=not-run]{background:#f3f3f3;color:#555;font-weight:normal}
td.reason{max-width:32em;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
td.seconds{text-align:right}
code{font:12px ui-monospace,monospace}
)";

std::string csv_field(std::string text) {
  // A leading = + - @ makes a spreadsheet read a formula; a server's own words can reach the reason.
  if (!text.empty() && std::string("=+-@").find(text.front()) != std::string::npos) text = "'" + text;
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// A learner's name as one path segment of a relative link: anything but letters, digits and -._~ is
// percent-encoded (a name with '#', '?' or a space would otherwise point elsewhere).
std::string link_segment(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// A row read from an older done.json may have fewer stages than the summary: the rest were not run.
StageResult stage_result(const ClassRow& row, int s) {
  return static_cast<std::size_t>(s) < row.stages.size() ? row.stages[s] : StageResult::NotRun;
}

std::string stage_heading(std::size_t s) { return s == 0 ? "contract" : "stage" + std::to_string(s); }

}  // namespace

std::string class_csv(const ClassSummary& summary) {
  std::string out = "learner,verdict";
  for (int s = 0; s <= summary.stage; ++s) out += "," + stage_heading(s);
  out += ",first_failing_check,anomaly,seconds,resumed,reason,report\n";
  for (const auto& row : summary.rows) {
    out += csv_field(row.name) + "," + row.verdict;
    for (int s = 0; s <= summary.stage; ++s)
      out += std::string(",") + word(stage_result(row, s));
    out += "," + csv_field(row.first_failure) + "," + csv_field(row.anomaly) + "," + one_decimal(row.seconds) + "," +
           (row.resumed ? "yes" : "no") + "," + csv_field(row.reason) + "," +
           csv_field(row.reports.empty() ? "" : row.name + "/" + row.reports.front()) + "\n";
  }
  return out;
}

std::string class_html(const ClassSummary& summary) {
  auto esc = [](const std::string& text) { return xml_escape(text); };
  int passed = 0, failed = 0, errors = 0;
  for (const auto& row : summary.rows) (row.verdict == "pass" ? passed : row.verdict == "fail" ? failed : errors)++;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
      esc(summary.title) + "</title><style>" + kClassStyle + "</style></head><body><header><h1>" + esc(summary.title) +
      "</h1>";
  for (const auto& line : summary.about) out += "<p>" + esc(line) + "</p>";
  out += "<p class=\"counts\">" + std::to_string(summary.rows.size()) + " learners: " + std::to_string(passed) +
         " passed every check, " + std::to_string(failed) + " failed a check, " + std::to_string(errors) +
         " could not be graded (error).</p></header><main>";
  out += "<table id=\"class\"><thead><tr><th>learner</th><th>verdict</th>";
  for (int s = 0; s <= summary.stage; ++s) out += "<th>" + stage_heading(s) + "</th>";
  out += "<th>first failing check</th><th>anomaly</th><th>seconds</th><th>reason</th><th>reports</th></tr></thead>"
         "<tbody>";
  for (const auto& row : summary.rows) {
    out += "<tr data-learner=\"" + esc(row.name) + "\"><th scope=\"row\">" + esc(row.name) + "</th>";
    out += "<td data-verdict=\"" + esc(row.verdict) + "\">" + esc(row.verdict) + "</td>";
    for (int s = 0; s <= summary.stage; ++s) {
      const char* w = word(stage_result(row, s));
      out += "<td data-stage=\"" + std::to_string(s) + "\" data-result=\"" + w + "\">" + w + "</td>";
    }
    out += "<td><code>" + esc(row.first_failure) + "</code></td><td>" + esc(row.anomaly) + "</td>";
    out += "<td class=\"seconds\">" + one_decimal(row.seconds) + (row.resumed ? " (earlier run)" : "") + "</td>";
    out += "<td class=\"reason\">" + esc(row.reason) + "</td><td>";
    for (const auto& file : row.reports)
      out += "<a href=\"" + link_segment(row.name) + "/" + link_segment(file) + "\">" + esc(file) + "</a> ";
    out += "</td></tr>";
  }
  return out + "</tbody></table></main></body></html>\n";
}

bool write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) std::cerr << "grader: cannot write " << path << "\n";
  return static_cast<bool>(out);
}

}  // namespace grader
