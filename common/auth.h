// auth.h: who is asking. docs/reference/http-contract.md "Authentication".
//
// Clients send `Authorization: Bearer <token>` (tokens from POST /admin/clients); the admin endpoints
// take the server's admin token. Both answer 401 problem+json themselves when the token is missing or wrong.
// (Tokens are made by common/token.h:random_token; the bank stores only their SHA-256.)
//
//   bearer_token_of("Bearer tok_ab12")      -> "tok_ab12"
//   bearer_token_of("Bearer tok_ab12\0x")   -> nullopt: a control byte (here NUL) is never part of a token
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/bank.h"

namespace httplib { struct Request; struct Response; }

namespace lab {

// The token of an Authorization field value, as the client sent it: "Bearer" (any case), one space, then
// the token, which is everything after that space. nullopt when the scheme is not Bearer, the token is
// empty, or the value holds a control byte anywhere: 0x00 to 0x1f or 0x7f (DEL). HTAB is refused too: RFC
// 9110 section 5.5 lets a field value carry one, but a bearer token (RFC 6750 section 2.1, b64token) never
// does; spaces and tabs around the whole value are not part of it (RFC 9110 5.5), and httplib drops them.
// Why refuse rather than just compare: cpp-httplib 0.11's get_header_value() returns the value through
// c_str(), so a reader of the header saw it cut at its first NUL ("Bearer <token>\0anything" authenticated
// as <token>); a value no token can have is refused before anything looks it up.
std::optional<std::string_view> bearer_token_of(std::string_view field_value);

// Both read the request's one Authorization field whole (a second one is refused: RFC 9110 section 11.6.2
// defines a single credential), and answer 401 with WWW-Authenticate: Bearer themselves.
std::optional<Client> authenticate_or_reply(Bank& bank, const httplib::Request& req, httplib::Response& res);
bool authorize_admin_or_reply(std::string_view admin_token, const httplib::Request& req, httplib::Response& res);

}  // namespace lab
