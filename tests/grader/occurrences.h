// occurrences.h: how many times a text holds a string, for the tests that read generated documents (the
// timeline SVG, the HTML report) without parsing them.
#pragma once

#include <cstddef>
#include <string>

namespace grader::testing {

inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace grader::testing
