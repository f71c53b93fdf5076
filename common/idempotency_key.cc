// idempotency_key.cc: see idempotency_key.h. The sf-string grammar is RFC 8941 section 3.3.3:
//   sf-string = DQUOTE *chr DQUOTE ;  chr = unescaped / escaped ;  unescaped = %x20-21 / %x23-5B / %x5D-7E
//   escaped   = "\" ( DQUOTE / "\" )
#include "common/idempotency_key.h"

#include <httplib.h>

namespace lab {
namespace {

bool is_printable_ascii(char c) { return c >= 0x20 && c <= 0x7E; }

Problem malformed(std::string detail) { return Problem::Of(ProblemType::IdempotencyKeyMalformed, std::move(detail)); }

// What may follow a complete value: nothing (after spaces), or a list / parameters, each its own problem.
std::optional<Problem> check_rest(std::string_view rest) {
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty()) return std::nullopt;
  if (rest.front() == ',')
    return Problem::Of(ProblemType::IdempotencyKeyList, "the header holds a list; send exactly one key");
  if (rest.front() == ';')
    return Problem::Of(ProblemType::IdempotencyKeyParameters, "parameters are not allowed after the key");
  return malformed("unexpected characters after the key: " + std::string(rest.substr(0, 20)));
}

std::variant<std::string, Problem> checked_length(std::string key) {
  if (key.empty()) return Problem::Of(ProblemType::IdempotencyKeyEmpty, "the key is empty");
  if (key.size() > kMaxKeyLength)
    return Problem::Of(ProblemType::IdempotencyKeyTooLong, "the key has " + std::to_string(key.size()) +
                                                               " characters, at most " +
                                                               std::to_string(kMaxKeyLength) + " are allowed");
  return key;
}

}  // namespace

std::variant<std::string, Problem> parse_idempotency_key(const std::vector<std::string_view>& header_lines) {
  if (header_lines.empty())
    return Problem::Of(ProblemType::IdempotencyKeyMissing, "send an Idempotency-Key header with a unique key");
  if (header_lines.size() > 1)
    return Problem::Of(ProblemType::IdempotencyKeyRepeatedHeader,
                       "Idempotency-Key was sent " + std::to_string(header_lines.size()) + " times");

  std::string_view value = header_lines.front();
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) return Problem::Of(ProblemType::IdempotencyKeyEmpty, "the header is empty");

  std::string key;
  if (value.front() == '"') {
    // The sf-string: unquote, honouring exactly two escapes.
    std::size_t i = 1;
    for (;; ++i) {
      if (i == value.size()) return malformed("the quoted key has no closing quote");
      char c = value[i];
      if (c == '"') break;
      if (c == '\\') {
        if (++i == value.size()) return malformed("the key ends inside an escape");
        if (value[i] != '"' && value[i] != '\\')
          return malformed(std::string("\\") + value[i] + " is not an sf-string escape (only \\\" and \\\\)");
        key += value[i];
      } else if (!is_printable_ascii(c)) {
        return malformed("the key may hold only printable ASCII (0x20-0x7E)");
      } else {
        key += c;
      }
    }
    if (auto problem = check_rest(value.substr(i + 1))) return *problem;
  } else {
    // A bare key (documented leniency): printable ASCII up to a space, ',' or ';'.
    std::size_t i = 0;
    for (; i < value.size(); ++i) {
      char c = value[i];
      if (c == ' ' || c == ',' || c == ';') break;
      if (c == '"' || c == '\\') return malformed("a bare key may not hold '\"' or '\\'; quote the key");
      if (!is_printable_ascii(c)) return malformed("the key may hold only printable ASCII (0x20-0x7E)");
    }
    key = std::string(value.substr(0, i));
    if (auto problem = check_rest(value.substr(i))) return *problem;
  }
  return checked_length(std::move(key));
}

std::optional<std::string> parse_idempotency_key_or_reply(const httplib::Request& req, httplib::Response& res) {
  std::vector<std::string_view> lines;
  auto [first, last] = req.headers.equal_range("Idempotency-Key");   // httplib compares names case-insensitively
  for (auto it = first; it != last; ++it) lines.push_back(it->second);
  auto result = parse_idempotency_key(lines);
  if (auto* problem = std::get_if<Problem>(&result)) {
    reply_problem(res, *problem);
    return std::nullopt;
  }
  return std::get<std::string>(std::move(result));
}

}  // namespace lab
