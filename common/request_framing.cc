// request_framing.cc: see request_framing.h.
#include "common/request_framing.h"

#include <httplib.h>

#include <algorithm>
#include <array>
#include <strings.h>

namespace lab {
namespace {

bool is_space_or_tab(char c) { return c == ' ' || c == '\t'; }

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Set by the library itself after parsing (Server::process_request); a client's copies stay as they are.
bool set_by_library(std::string_view name) {
  static constexpr std::array<std::string_view, 4> kNames = {"REMOTE_ADDR", "REMOTE_PORT", "LOCAL_ADDR",
                                                             "LOCAL_PORT"};
  return std::any_of(kNames.begin(), kNames.end(), [name](std::string_view n) {
    return n.size() == name.size() && strncasecmp(n.data(), name.data(), n.size()) == 0;
  });
}

}  // namespace

std::vector<HeaderField> header_fields_of(std::string_view raw_head) {
  std::vector<HeaderField> fields;
  bool request_line = true;
  while (!raw_head.empty()) {
    std::size_t end = raw_head.find('\n');
    std::string_view line = raw_head.substr(0, end == std::string_view::npos ? raw_head.size() : end + 1);
    raw_head.remove_prefix(line.size());
    if (request_line) {
      request_line = false;
      continue;
    }
    if (line == "\r\n") break;              // the blank line ends the head
    if (!line.ends_with("\r\n")) continue;  // the library skips a line without CRLF
    line.remove_suffix(2);
    while (!line.empty() && is_space_or_tab(line.back())) line.remove_suffix(1);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && is_space_or_tab(value.front())) value.remove_prefix(1);
    if (value.empty()) continue;            // the library stores no header with an empty value
    fields.push_back(HeaderField{std::string(line.substr(0, colon)), std::string(value)});
  }
  return fields;
}

void restore_raw_header_values(httplib::Request& req, std::string_view raw_head) {
  std::vector<HeaderField> fields = header_fields_of(raw_head);
  for (const HeaderField& field : fields)
    if (!set_by_library(field.name)) req.headers.erase(field.name);   // case-insensitive, every value
  for (const HeaderField& field : fields)
    if (!set_by_library(field.name)) req.headers.emplace(field.name, field.value);
}

std::optional<Problem> check_framing(httplib::Request& req) {
  if (req.has_header("Transfer-Encoding"))
    return Problem::Of(ProblemType::LengthRequired,
                       "send the body with a Content-Length header; Transfer-Encoding is not accepted");
  std::size_t lengths = req.get_header_value_count("Content-Length");
  std::string length = req.get_header_value("Content-Length");
  for (std::size_t i = 0; i < lengths; ++i) {
    std::string value = req.get_header_value("Content-Length", i);
    if (!all_digits(value)) return Problem::Of(ProblemType::MalformedRequest, "Content-Length is not a number");
    if (value != length)
      return Problem::Of(ProblemType::MalformedRequest, "two Content-Length headers with different values");
  }
  std::string coding = req.get_header_value("Content-Encoding");
  if (req.has_header("Content-Encoding") && strcasecmp(coding.c_str(), "identity") != 0)
    return Problem::Of(ProblemType::UnsupportedContentEncoding,
                       "the body must not be compressed (Content-Encoding is not accepted)");
  if (lengths == 0) req.set_header("Content-Length", "0");
  return std::nullopt;
}

}  // namespace lab
