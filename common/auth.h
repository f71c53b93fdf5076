// auth.h: who is asking. LAB.md "The HTTP contract: authentication".
//
// Clients send `Authorization: Bearer <token>` (tokens from POST /admin/clients); the admin endpoints
// take the server's admin token. Both answer 401 problem+json themselves when the token is missing or wrong.
// (Tokens are made by common/token.h:random_token; the bank stores only their SHA-256.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/bank.h"

namespace httplib { struct Request; struct Response; }

namespace lab {

std::optional<Client> authenticate_or_reply(Bank& bank, const httplib::Request& req, httplib::Response& res);
bool authorize_admin_or_reply(std::string_view admin_token, const httplib::Request& req, httplib::Response& res);

}  // namespace lab
