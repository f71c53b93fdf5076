// xml_escape.h: text made safe to stand in XML or HTML, as element text or a quoted attribute value.
// Shared by every document the grader writes (JUnit XML, the timeline SVG, the HTML report).
//
//   out << "<g aria-label=\"" << xml_escape(label) << "\">";
//
// & < > " ' become entities; bytes XML 1.0 cannot hold (control characters other than tab, LF and CR,
// invalid UTF-8, which the grader sends on purpose in some bodies) become "?", so the document stays
// well-formed whatever the server or the grader put in a body or a key.
#pragma once

#include <string>

namespace grader {

std::string xml_escape(const std::string& text);

}  // namespace grader
