// numbers.h: a number read from a command line or a URL, strictly. Shared by every subcommand's command
// line (grader/cli/command_line.h) and by grader/wire/target.cc's URL parser.
#pragma once

#include <charconv>
#include <optional>
#include <string>

namespace grader {

// A number from lo to hi written as digits only ("12", not "12x", " 12" or "1e3"), or nothing.
template <typename T>
std::optional<T> parse_number(const std::string& text, T lo, T hi) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi) return std::nullopt;
  return value;
}

}  // namespace grader
