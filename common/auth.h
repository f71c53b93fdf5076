// auth.h: who is asking. LAB.md "The HTTP contract: authentication".
//
// Clients send `Authorization: Bearer <token>` (tokens from POST /admin/clients); the admin endpoints
// take the server's admin token. Both answer 401 problem+json themselves when the token is missing or wrong.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/bank.h"

namespace httplib { struct Request; struct Response; }

namespace lab {

// A fresh secret: prefix + hex of random_bytes bytes from OpenSSL's CSPRNG ("tok_9f2c...").
std::string random_token(std::string_view prefix, std::size_t random_bytes);

std::optional<Client> authenticate_or_reply(Bank& bank, const httplib::Request& req, httplib::Response& res);
bool authorize_admin_or_reply(std::string_view admin_token, const httplib::Request& req, httplib::Response& res);

}  // namespace lab
