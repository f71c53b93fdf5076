// decimal_text.h: a number with one decimal, as the SVG drawings write coordinates and the class summary
// writes seconds ("12.5").
#pragma once

#include <cstdio>
#include <string>

namespace grader {

inline std::string one_decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace grader
