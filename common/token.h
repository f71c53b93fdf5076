// token.h: fresh random secrets, for the bearer tokens of clients and of the admin. docs/reference/the-bank.md "The bank" and
// "The HTTP contract: authentication".
//
//   std::string admin_token = random_token("adm_", 16);   // "adm_" + 32 hex digits: 128 random bits
//
// Its own file so that the bank (which makes client tokens) and auth (which checks them) do not depend on
// each other: both depend on this.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lab {

// prefix + lowercase_hex of random_bytes bytes from OpenSSL's CSPRNG (RAND_bytes), e.g. "tok_9f2c...".
// The prefix tells a reader what kind of secret it is; the bytes are its strength. Throws
// std::runtime_error only if OpenSSL cannot produce random bytes.
std::string random_token(std::string_view prefix, std::size_t random_bytes);

}  // namespace lab
