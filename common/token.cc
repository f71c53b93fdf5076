// token.cc: see token.h.
#include "common/token.h"

#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

#include "common/hex.h"

namespace lab {

std::string random_token(std::string_view prefix, std::size_t random_bytes) {
  std::vector<unsigned char> bytes(random_bytes);
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) throw std::runtime_error("RAND_bytes failed");
  return std::string(prefix) + lowercase_hex(bytes);
}

}  // namespace lab
