// auth.cc: see auth.h.
#include "common/auth.h"

#include <httplib.h>
#include <openssl/crypto.h>

#include <cctype>

namespace lab {
namespace {

std::optional<std::string> bearer_token(const httplib::Request& req) {
  static constexpr std::string_view kScheme = "bearer ";   // RFC 9110 section 11.1: case-insensitive
  std::string header = req.get_header_value("Authorization");
  if (header.size() <= kScheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return std::nullopt;
  return header.substr(kScheme.size());
}

void reply_unauthorized(httplib::Response& res, const char* detail) {
  reply_problem(res, Problem::Of(ProblemType::Unauthorized, detail));
  res.set_header("WWW-Authenticate", "Bearer");
}

}  // namespace

std::optional<Client> authenticate_or_reply(Bank& bank, const httplib::Request& req, httplib::Response& res) {
  auto token = bearer_token(req);
  if (!token) {
    reply_unauthorized(res, "send Authorization: Bearer <client token>");
    return std::nullopt;
  }
  auto client = bank.authenticate(*token);
  if (!client) reply_unauthorized(res, "unknown client token");
  return client;
}

bool authorize_admin_or_reply(std::string_view admin_token, const httplib::Request& req, httplib::Response& res) {
  auto token = bearer_token(req);
  // Constant-time comparison: the time taken must not reveal how many leading characters matched.
  bool ok = token && token->size() == admin_token.size() &&
            CRYPTO_memcmp(token->data(), admin_token.data(), admin_token.size()) == 0;
  if (!ok) reply_unauthorized(res, "send Authorization: Bearer <admin token>");
  return ok;
}

}  // namespace lab
