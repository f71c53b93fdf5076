// field_errors.h: the 400 invalid-field problem, which lists every field error at once. docs/reference/http-contract.md
// "Errors: problem+json".
//
//   FieldErrors errors;
//   if (!body.contains("amount")) errors.add("amount", "is required");
//   if (!body.contains("currency")) errors.add("currency", "is required");
//   if (!errors.empty()) return reply_problem(res, errors.to_problem());
//   // {"type":"/problems/invalid-field", "detail":"amount: is required",
//   //  "errors":[{"field":"amount","reason":"is required"},{"field":"currency","reason":"is required"}], ...}
//
// Every invalid-field answer of the lab is built here (money bodies, admin bodies, query parameters), so
// they all have one shape: `errors` holds each {"field","reason"} in the order found, and `detail` repeats
// the first as "field: reason" for a reader who looks at detail only.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "common/problem.h"

namespace lab {

// Collects every field error, so a client fixes the body in one round trip instead of one per field.
class FieldErrors {
 public:
  void add(std::string_view field, std::string_view reason);
  bool empty() const { return errors_.empty(); }
  Problem to_problem() const;   // 400 invalid-field; needs at least one error

 private:
  nlohmann::json errors_ = nlohmann::json::array();
};

// The invalid-field problem for one field: where a check stops at the first error.
Problem field_problem(std::string_view field, std::string_view reason);

}  // namespace lab
