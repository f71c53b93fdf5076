// message.cc: header look-up for the model's requests and answers (message.h).
#include "grader/model/message.h"

#include <cctype>

namespace grader::model {

namespace {
bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(a[k])) != std::tolower(static_cast<unsigned char>(b[k]))) return false;
  return true;
}
}  // namespace

std::vector<std::string> header_values(const std::vector<Header>& headers, std::string_view name) {
  std::vector<std::string> values;
  for (const Header& h : headers)
    if (same_name(h.name, name)) values.push_back(h.value);
  return values;
}

std::optional<std::string> header_value(const std::vector<Header>& headers, std::string_view name) {
  for (const Header& h : headers)
    if (same_name(h.name, name)) return h.value;
  return std::nullopt;
}

std::string media_type(std::string_view content_type) {
  std::string out;
  for (char c : content_type.substr(0, content_type.find(';')))
    if (c != ' ' && c != '\t') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace grader::model
