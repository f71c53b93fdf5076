// junit_xml.cc: see junit_xml.h.
#include "grader/junit_xml.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "grader/report.h"

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

std::string xml_escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows only tab, LF and CR below 0x20. Bytes >= 0x80 pass: the text is UTF-8, except
        // in bodies the grader sent on purpose as invalid UTF-8, which are replaced.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += "?";
        else
          out += static_cast<char>(c);
    }
  }
  // Replace invalid UTF-8 sequences, so the document stays well-formed.
  std::string valid;
  for (std::size_t i = 0; i < out.size();) {
    unsigned char c = out[i];
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= out.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(out[i + k]) >> 6) == 0x2;
    if (ok)
      valid.append(out, i, len), i += len;
    else
      valid += "?", ++i;
  }
  return valid;
}

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
