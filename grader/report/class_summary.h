// class_summary.h: a class's summary (`grader class`), a row per learner, as CSV for a spreadsheet and as
// one self-contained HTML page for people. docs/teach/grader-for-courses.md "Grading a class".
//
//   ClassSummary summary{.stage = 5, .about = {"seed 1", "graded in 312 s"}, .rows = rows};
//   write_text_file(out + "/summary.csv", class_csv(summary));
//   write_text_file(out + "/summary.html", class_html(summary));
//
// CSV columns: learner, verdict, contract, stage1..stageN (pass, fail or not-run), first_failing_check,
// anomaly, seconds, resumed (yes: read from done.json, not graded in this run), reason, report (its
// report.html, or report.txt when the grader wrote no page). A field a spreadsheet would run as a formula
// (= + - @ first) gets a leading ', since a server's text reaches the reason.
//
// The page: table#class, a tr[data-learner=NAME] per learner, its td[data-verdict=pass|fail|error] and a
// td[data-stage=K][data-result=pass|fail|not-run] per stage, the words in the cells (never a colour alone),
// and relative links to the row's reports (NAME/report.html, report.txt, ...) beside the page. Inline
// CSS, no script, nothing loaded: it opens from disk or an archive of the output folder.
#pragma once

#include <string>
#include <vector>

#include "grader/report/class_row.h"

namespace grader {

struct ClassSummary {
  std::string title = "grader class";
  int stage = 6;                        // the graded stages: 1..stage
  std::vector<std::string> about = {};  // lines under the heading
  std::vector<ClassRow> rows = {};
};

// The files of one learner's folder, as the summary links them (`grader class` writes them there).
inline constexpr const char* kLearnerReports[] = {"report.html", "report.txt", "results.json", "junit.xml"};

std::string class_csv(const ClassSummary& summary);
std::string class_html(const ClassSummary& summary);

// Writes `text` to `path`; false (and a line on stderr) if it could not.
bool write_text_file(const std::string& path, const std::string& text);

}  // namespace grader
