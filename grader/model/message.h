// message.h: what the model judges: a request as the client sent it, and the answer as it came back (or
// that none came). docs/reference/http-contract.md "Client endpoints (client token)",
// "Admin endpoints (admin token)".
//
// Plain data, no parsing of its own beyond finding a header by name (letter case ignored, as HTTP does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grader::model {

struct Header {
  std::string name, value;
};

struct Request {
  std::string method;  // "GET", "POST"
  std::string path;    // "/transfers", "/payouts", "/accounts/3", "/admin/clients", "/admin/accounts", "/admin/clock"
  std::vector<Header> headers;
  std::string body;
  // When it was sent, in ms of real time since the history began, as the observer measured it. The lab
  // clock is real time plus the offset POST /admin/clock moved (docs/reference/plumbing.md "The lab clock").
  std::int64_t real_ms = 0;
};

struct Answer {
  bool answered = true;  // false: the connection closed with no answer (a crash, a dead server)
  int status = 0;
  std::vector<Header> headers;
  std::string body;

  static Answer none() { return Answer{.answered = false, .status = 0, .headers = {}, .body = {}}; }
};

// Every value of the header `name`, in order (a header may come twice: idempotency-key-repeated-header).
std::vector<std::string> header_values(const std::vector<Header>& headers, std::string_view name);
std::optional<std::string> header_value(const std::vector<Header>& headers, std::string_view name);
// The media type without parameters, lower-cased: "Application/JSON; charset=utf-8" -> "application/json".
std::string media_type(std::string_view content_type);

}  // namespace grader::model
