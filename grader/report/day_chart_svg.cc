// day_chart_svg.cc: see day_chart_svg.h.
#include "grader/report/day_chart_svg.h"

#include <algorithm>
#include <cstdio>

#include "grader/base/xml_escape.h"
#include "grader/report/decimal_text.h"

namespace grader {
namespace {

// Layout, in SVG units: two panels side by side, each a heading and one row per server.
constexpr double kChartWidth = 900;
constexpr double kPanelWidth = 440, kPanelGap = 20;
constexpr double kPanelHeading = 22, kRowHeight = 15, kChartBarHeight = 10, kPanelBottom = 14;
constexpr double kLabelWidth = 160;  // server names
constexpr double kBarsWidth = 220;   // the longest bar; its number stands after it
constexpr std::size_t kNameChars = 27;

std::string heading(Damage d) {
  switch (d) {
    case Damage::Conservation:
      return "conserv: money created or destroyed (minor units)";
    case Damage::Expired:
      return "expired*: ran again after retention (policy, not damage)";
    case Damage::Rekeyed:
      return "rekeyed*: one intent under several keys (client-made)";
    default: {
      const std::string text(describe(d));  // "duplicate executions: money moved ..." -> its first words
      return std::string(column_name(d)) + ": " + text.substr(0, text.find(':'));
    }
  }
}

// The largest count (or amount) of these kinds on any server, at least 1.
std::int64_t largest(const DayReport& day, const std::vector<Damage>& kinds) {
  std::int64_t most = 1;
  for (const auto& r : day.rows)
    for (Damage d : kinds)
      if (r.error.empty()) most = std::max(most, r.damage.count(d) < 0 ? -r.damage.count(d) : r.damage.count(d));
  return most;
}

}  // namespace

std::string day_chart_svg(const DayReport& day) {
  // Which kinds of damage did any server do?
  std::vector<Damage> shown;
  for (Damage d : kAllDamage)
    if (std::any_of(day.rows.begin(), day.rows.end(),
                    [&](const DayRow& r) { return r.error.empty() && r.damage.count(d) != 0; }))
      shown.push_back(d);
  // One scale for every panel, so a bar's length compares across kinds; conservation is counted in minor
  // units, not intents, and has a scale of its own.
  std::vector<Damage> counted;
  for (Damage d : shown)
    if (d != Damage::Conservation) counted.push_back(d);
  const double panel_height = kPanelHeading + kRowHeight * static_cast<double>(day.rows.size()) + kPanelBottom;
  const std::size_t panel_rows = std::max<std::size_t>(1, (shown.size() + 1) / 2);
  const double height = shown.empty() ? 40 : panel_height * static_cast<double>(panel_rows);

  std::string summary = "bar chart of the table above: ";
  if (shown.empty()) summary += "no server did any damage";
  for (Damage d : shown) {
    summary += std::string(column_name(d)) + " (";
    for (const auto& r : day.rows)
      if (r.error.empty()) summary += r.server + " " + std::to_string(r.damage.count(d)) + ", ";
    summary.resize(summary.size() - 2);
    summary += "); ";
  }
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"day-chart\" width=\"" + one_decimal(kChartWidth) +
                    "\" height=\"" + one_decimal(height) + "\" viewBox=\"0 0 " + one_decimal(kChartWidth) + " " + one_decimal(height) +
                    "\" role=\"img\" aria-label=\"" + xml_escape(summary) + "\"><title>" +
                    xml_escape("The day's damage per server") +
                    "</title><style>"
                    "#day-chart text{font:11px sans-serif;fill:#1a1a1a}"
                    "#day-chart .panel-heading{font-weight:bold}"
                    "#day-chart .bar{fill:#455a64}"
                    "#day-chart .axis{stroke:#888}"
                    "</style>";
  if (shown.empty()) out += "<text x=\"0\" y=\"24\">No server did any damage on this day.</text>";
  for (std::size_t p = 0; p < shown.size(); ++p) {
    const Damage d = shown[p];
    const double x0 = static_cast<double>(p % 2) * (kPanelWidth + kPanelGap);
    const double y0 = static_cast<double>(p / 2) * panel_height;
    const std::int64_t most = largest(day, d == Damage::Conservation ? std::vector<Damage>{d} : counted);
    out += "<g class=\"panel\" data-damage=\"" + xml_escape(std::string(column_name(d))) + "\">";
    out += "<text class=\"panel-heading\" x=\"" + one_decimal(x0) + "\" y=\"" + one_decimal(y0 + 15) + "\">" + xml_escape(heading(d)) +
           "</text>";
    const double bars_x = x0 + kLabelWidth;
    out += "<line class=\"axis\" x1=\"" + one_decimal(bars_x) + "\" y1=\"" + one_decimal(y0 + kPanelHeading - 2) + "\" x2=\"" +
           one_decimal(bars_x) + "\" y2=\"" + one_decimal(y0 + panel_height - kPanelBottom + 2) + "\"/>";
    for (std::size_t k = 0; k < day.rows.size(); ++k) {
      const DayRow& r = day.rows[k];
      const double y = y0 + kPanelHeading + kRowHeight * static_cast<double>(k);
      std::string name = r.server.size() > kNameChars ? r.server.substr(0, kNameChars - 1) + "~" : r.server;
      out += "<text x=\"" + one_decimal(x0) + "\" y=\"" + one_decimal(y + kChartBarHeight) + "\">" + xml_escape(name) + "</text>";
      if (!r.error.empty()) {
        out += "<text x=\"" + one_decimal(bars_x + 4) + "\" y=\"" + one_decimal(y + kChartBarHeight) + "\">replay failed</text>";
        continue;
      }
      const std::int64_t n = r.damage.count(d);
      // At least 2 units long, so a count of 1 beside a count of 1000 is still seen.
      const double w =
          n == 0 ? 0 : std::max(2.0, kBarsWidth * static_cast<double>(n < 0 ? -n : n) / static_cast<double>(most));
      if (n != 0)
        out += "<rect class=\"bar\" x=\"" + one_decimal(bars_x) + "\" y=\"" + one_decimal(y + 1) + "\" width=\"" + one_decimal(w) +
               "\" height=\"" + one_decimal(kChartBarHeight) + "\"/>";
      out += "<text class=\"value\" x=\"" + one_decimal(bars_x + w + 4) + "\" y=\"" + one_decimal(y + kChartBarHeight) + "\">" +
             std::to_string(n) + "</text>";
    }
    out += "</g>";
  }
  return out + "</svg>";
}

}  // namespace grader
