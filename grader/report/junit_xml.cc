// junit_xml.cc: see junit_xml.h.
#include "grader/report/junit_xml.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "grader/report/report.h"

namespace grader {
namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

struct Counts {
  int tests = 0, failures = 0, skipped = 0;
  double time = 0;
};

}  // namespace

std::string junit_xml(const std::vector<CheckOutcome>& outcomes, const std::string& repeat_command, double total) {
  std::map<int, std::vector<const CheckOutcome*>> by_stage;
  std::map<int, Counts> counts;
  Counts all;
  for (const auto& o : outcomes) {
    by_stage[o.check->stage].push_back(&o);
    for (Counts* c : {&counts[o.check->stage], &all}) {
      c->tests++;
      c->failures += o.verdict == Verdict::Fail;
      c->skipped += o.verdict == Verdict::Skip;
      c->time += o.seconds;
    }
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"grader\" tests=\"" << all.tests << "\" failures=\"" << all.failures
    << "\" errors=\"0\" skipped=\"" << all.skipped << "\" time=\"" << seconds(total) << "\">\n";
  for (const auto& [stage, list] : by_stage) {
    const Counts& c = counts[stage];
    x << "  <testsuite name=\"stage" << stage << "\" tests=\"" << c.tests << "\" failures=\"" << c.failures
      << "\" errors=\"0\" skipped=\"" << c.skipped << "\" time=\"" << seconds(c.time) << "\">\n";
    for (const CheckOutcome* o : list) {
      std::string name = o->check->name.substr(o->check->name.find('.') + 1) + ": " + o->check->title;
      x << "    <testcase name=\"" << xml_escape(name) << "\" classname=\"grader.stage" << stage << "\" time=\""
        << seconds(o->seconds) << "\"";
      if (o->verdict == Verdict::Pass) {
        x << "/>\n";
        continue;
      }
      x << ">\n";
      if (o->verdict == Verdict::Skip) {
        x << "      <skipped message=\"" << xml_escape(o->note) << "\"/>\n";
      } else {
        const Finding& first = o->findings.front();
        std::string type(grader::name(first.anomaly));
        x << "      <failure message=\"" << xml_escape(type + ": " + first.what) << "\" type=\"" << type << "\">"
          << xml_escape(describe_failure(*o, repeat_command, true)) << "</failure>\n";
      }
      x << "    </testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

}  // namespace grader
