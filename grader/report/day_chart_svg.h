// day_chart_svg.h: the day's damage per server as bars, for the HTML report. docs/teach/the-day.md "The day" (the audit).
//
//   std::string svg = day_chart_svg(report.day.value());   // <svg id="day-chart" ...>
//
// One panel per kind of damage that any server did (dup, lost, ...), each with a bar per server and its
// number written beside it, so the figure reads without colour and without the table. The panels share one
// scale (but conservation, counted in minor units). The same numbers are in table#day-damage above it.
#pragma once

#include <string>

#include "grader/report/report_html.h"

namespace grader {

std::string day_chart_svg(const DayReport& day);

}  // namespace grader
