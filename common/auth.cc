// auth.cc: see auth.h.
#include "common/auth.h"

#include <httplib.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
#include <iterator>

namespace lab {
namespace {

constexpr unsigned char kFirstPrintable = 0x20;   // below it: the C0 control bytes (NUL, HTAB, LF, CR, ESC...)
constexpr unsigned char kDelete = 0x7f;           // DEL, the one control byte above them (auth.h)

bool is_control_byte(char c) {
  auto byte = static_cast<unsigned char>(c);
  return byte < kFirstPrintable || byte == kDelete;
}

// The one Authorization value as stored, whole: not get_header_value(), which would cut it at a NUL
// (auth.h). None, or two (which one would count?), is nullopt.
std::optional<std::string_view> authorization_value(const httplib::Request& req) {
  auto [first, end] = req.headers.equal_range("Authorization");   // names compared case-insensitively
  if (first == end || std::next(first) != end) return std::nullopt;
  return std::string_view(first->second);
}

std::optional<std::string_view> bearer_token_or_none(const httplib::Request& req) {
  auto value = authorization_value(req);
  return value ? bearer_token_of(*value) : std::nullopt;
}

void reply_unauthorized(httplib::Response& res, const char* detail) {
  reply_problem(res, Problem::Of(ProblemType::Unauthorized, detail));
  res.set_header("WWW-Authenticate", "Bearer");
}

}  // namespace

std::optional<std::string_view> bearer_token_of(std::string_view field_value) {
  static constexpr std::string_view kScheme = "bearer ";   // RFC 9110 section 11.1: case-insensitive
  if (std::ranges::any_of(field_value, is_control_byte)) return std::nullopt;
  if (field_value.size() <= kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(field_value[i])) != kScheme[i]) return std::nullopt;
  return field_value.substr(kScheme.size());
}

std::optional<Client> authenticate_or_reply(Bank& bank, const httplib::Request& req, httplib::Response& res) {
  auto token = bearer_token_or_none(req);
  if (!token) {
    reply_unauthorized(res, "send Authorization: Bearer <client token>");
    return std::nullopt;
  }
  auto client = bank.authenticate(*token);
  if (!client) reply_unauthorized(res, "unknown client token");
  return client;
}

bool authorize_admin_or_reply(std::string_view admin_token, const httplib::Request& req, httplib::Response& res) {
  auto token = bearer_token_or_none(req);
  // Constant-time comparison: the time taken must not reveal how many leading characters matched.
  bool ok = token && token->size() == admin_token.size() &&
            CRYPTO_memcmp(token->data(), admin_token.data(), admin_token.size()) == 0;
  if (!ok) reply_unauthorized(res, "send Authorization: Bearer <admin token>");
  return ok;
}

}  // namespace lab
