// auth_test.cc: what common/auth.h takes as a bearer token, and what it refuses before any token is compared.
#include "common/auth.h"

#include <httplib.h>

#include <catch2/catch.hpp>

#include <string>

using namespace std::string_literals;
using lab::bearer_token_of;

TEST_CASE("a bearer token is everything after \"Bearer \", the scheme in any case", "[auth]") {
  CHECK(bearer_token_of("Bearer tok_ab12") == "tok_ab12");
  CHECK(bearer_token_of("bEaReR tok_ab12") == "tok_ab12");
  CHECK(bearer_token_of("Bearer tok with spaces") == "tok with spaces");   // a wrong token, left to the lookup
}

TEST_CASE("no token without the Bearer scheme and a token", "[auth]") {
  CHECK_FALSE(bearer_token_of(""));
  CHECK_FALSE(bearer_token_of("Bearer"));
  CHECK_FALSE(bearer_token_of("Bearer "));
  CHECK_FALSE(bearer_token_of("Basic YWxhZGRpbjpvcGVu"));
  CHECK_FALSE(bearer_token_of("Bearertok_ab12"));
}

TEST_CASE("a value with a control byte anywhere holds no token", "[auth]") {
  for (int byte = 0x00; byte <= 0x1f; ++byte) {
    const std::string c(1, static_cast<char>(byte));
    INFO("byte " << byte);
    CHECK_FALSE(bearer_token_of("Bearer tok_ab12" + c));
    CHECK_FALSE(bearer_token_of("Bearer tok_" + c + "ab12"));
    CHECK_FALSE(bearer_token_of("Bearer " + c + "tok_ab12"));
    CHECK_FALSE(bearer_token_of(c + "Bearer tok_ab12"));
  }
  CHECK_FALSE(bearer_token_of("Bearer tok_ab12\x7f"));
  CHECK_FALSE(bearer_token_of("Bearer tok_ab12\0anything"s));   // a NUL: the cut a C string would make
  CHECK_FALSE(bearer_token_of("Bearer\ttok_ab12"));             // HTAB is not the scheme's space either
  // Bytes from 0x80 on are not control bytes: such a value is a wrong token, refused by the lookup.
  CHECK(bearer_token_of("Bearer tok_\xff") == "tok_\xff");
}

namespace {

// Whether the admin token `token` is let in by a request carrying these Authorization values.
bool admin_lets_in(const std::vector<std::string>& authorization_values, std::string_view token = "adm_1") {
  httplib::Request req;
  for (const auto& value : authorization_values) req.headers.emplace("Authorization", value);
  httplib::Response res;
  bool ok = lab::authorize_admin_or_reply(token, req, res);
  if (!ok) {
    CHECK(res.status == 401);
    CHECK(res.get_header_value("WWW-Authenticate") == "Bearer");
  }
  return ok;
}

}  // namespace

TEST_CASE("the admin token is compared with the whole header value, NUL and all", "[auth]") {
  CHECK(admin_lets_in({"Bearer adm_1"}));
  CHECK_FALSE(admin_lets_in({"Bearer adm_1\0anything"s}));
  CHECK_FALSE(admin_lets_in({"Bearer adm_1\0"s}));
  CHECK_FALSE(admin_lets_in({"Bearer adm_2"}));
  CHECK_FALSE(admin_lets_in({}));
}

TEST_CASE("two Authorization headers are refused, even if one holds the right token", "[auth]") {
  CHECK_FALSE(admin_lets_in({"Bearer adm_1", "Bearer adm_1"}));
  CHECK_FALSE(admin_lets_in({"Bearer wrong", "Bearer adm_1"}));
}
