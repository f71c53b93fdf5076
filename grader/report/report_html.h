// report_html.h: the grader's findings as one self-contained HTML page: the check matrix, each failed check
// with its timeline, and the day's damage. docs/teach/grader.md "The grader" (output).
//
//   HtmlReport report{.title = "grader matrix", .about = {"seed 7"}, .checks = selected};
//   report.servers.push_back(graded_server("s1", "stage1_naive", outcomes, history));
//   write_report_html("report.html", report);
//
// The page needs nothing but itself: inline CSS, inline SVG, no script and no external asset, so it opens
// from disk (file://), from a CI artifact or a mail attachment, and reads the same with colours off. Its only
// links out are a.teaches, to the chapter in the local book (HtmlReport::book), when there is one. Each
// verdict is a word (PASS, FAIL, SKIP), never a colour alone. The ids and classes tests and links rely on:
//   table#matrix                         rows = checks, columns = servers; cells td[data-verdict=pass|fail|skip]
//   section.failed-check[data-check=NAME][data-stage=LABEL]   one per failed check of each server, holding
//       a.first-violation                a link to the first marked attempt of its timeline
//       svg.timeline                     timeline_svg of the check's history, its findings as marks
//   table#day-damage, svg#day-chart      the day's damage per server, as numbers and as labelled bars
// Every text from a server, a key or a body is escaped (grader/base/xml_escape.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grader/checks/runner.h"
#include "grader/day/day_audit.h"
#include "grader/record/history.h"

namespace grader {

// One server graded: a column of the matrix.
struct GradedServer {
  std::string label = "";   // the column's heading and data-stage: "s1", "w-sel", "server"
  std::string binary = "";  // what ran: a file name, or the --server command
  bool built = true;        // false: not built, so not graded
  std::string error = "";   // why it did not start (then it has no outcomes)
  std::vector<CheckOutcome> outcomes = {};
  std::map<std::string, std::vector<Event>> histories = {};  // check name -> its events, for each failed check
};

// The outcomes of one server, with the history of each check that failed (the timelines need it).
GradedServer graded_server(std::string label, std::string binary, std::vector<CheckOutcome> outcomes,
                           const History& history);

// One server's replay of the day.
struct DayRow {
  std::string server = "";
  std::size_t sends = 0;
  double seconds = 0;
  DayDamage damage = {};
  std::string error = "";  // why the replay failed (then no counts)
};

struct DayReport {
  std::string log = "";  // which day: a file, or how it was generated
  std::size_t intents = 0, sends = 0;
  std::vector<DayRow> rows = {};
};

struct HtmlReport {
  std::string title = "";                  // the page's <title> and heading
  std::vector<std::string> about = {};     // lines under the heading: seed, command, time taken
  std::vector<const Check*> checks = {};   // the matrix's rows, in order
  std::vector<GradedServer> servers = {};  // its columns; none: the page has no matrix
  std::optional<std::vector<std::string>> staircase = std::nullopt;  // the matrix's broken rules, when it was judged
  std::optional<DayReport> day = std::nullopt;
  // The book's root (build/book/ as a file:// URL: local_book_url()), for the links under each failed
  // check to the chapter that teaches it; empty: the chapter is named, not linked.
  std::string book = "";
};

// The book `make book` wrote beside this grader (build/grader/grader -> build/book/), as a file:// URL
// ending in '/'; empty when it has not been made.
std::string local_book_url();

std::string report_html(const HtmlReport& report);
// Writes the page; false (and a line on stderr saying so) if it could not.
bool write_report_html(const std::string& path, const HtmlReport& report);

}  // namespace grader
