// money_request.h: the body rules of POST /transfers and POST /payouts, judged before the key table is
// touched (so a refused body never burns its key). docs/reference/http-contract.md "Client endpoints (client token)" (body
// rules) and "Status codes and their order" (step 3: 415, 413, 400 json-* or invalid-field).
//
//   BodyRead read = read_money_body(Endpoint::Transfers, content_type, body);
//   if (read.status != 0) ... the answer is read.status with problem type read.problem
//   else read.request: the valid request, and read.request.canonical its fingerprint's input
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "grader/model/keys.h"

namespace grader::model {

constexpr std::size_t kMaxMoneyBody = 16 * 1024;                // bytes: 413 body-too-large above
constexpr std::int64_t kMaxMoney = (std::int64_t{1} << 53) - 1;  // amounts, ids, balances: exact in a double
constexpr std::size_t kMaxMemoBytes = 200;
constexpr std::size_t kMaxDestinationBytes = 64;
constexpr std::size_t kMaxMetadataKeys = 20;
constexpr std::size_t kMaxMetadataKeyChars = 40;    // code points
constexpr int kMaxMetadataDepth = 3;                 // counting metadata itself
constexpr std::size_t kMaxMetadataBytes = 2 * 1024;  // of its canonical form

struct MoneyRequest {
  Endpoint endpoint = Endpoint::Transfers;
  std::int64_t from = 0, to = 0, amount = 0;  // to: transfers only
  std::string currency, memo, destination;    // memo "" when omitted; destination: payouts only
  std::optional<std::string> metadata;        // its canonical form, when sent
  std::string canonical;                      // the whole body's canonical form: the fingerprint
};

struct BodyRead {
  int status = 0;       // 0: valid; else 415, 413 or 400
  std::string problem;  // the problem type's slug when refused
  MoneyRequest request;
};

BodyRead read_money_body(Endpoint endpoint, std::optional<std::string_view> content_type, std::string_view body);

}  // namespace grader::model
