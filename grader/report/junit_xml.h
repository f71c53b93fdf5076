// junit_xml.h: JUnit XML, the shape of the common JUnit XSD (Jenkins' junit-10.xsd), for CI systems.
//
//   <testsuites name="grader" tests="31" failures="2" errors="0" skipped="0" time="12.400">
//     <testsuite name="stage2" tests="5" failures="1" errors="0" skipped="0" time="1.200">
//       <testcase name="lost-response-retry: a retry ..." classname="grader.stage2" time="0.050">
//         <failure message="double-apply: A1: intent i1 ..." type="double-apply">full text</failure>
//       </testcase>
//       <testcase ...><skipped message="..."/></testcase>
//
// One testsuite per stage, in stage order. tests/grader/junit.xsd is the schema the tests validate against.
#pragma once

#include <string>
#include <vector>

#include "grader/base/xml_escape.h"
#include "grader/checks/runner.h"

namespace grader {

std::string junit_xml(const std::vector<CheckOutcome>& outcomes, const std::string& repeat_command, double seconds);

}  // namespace grader
