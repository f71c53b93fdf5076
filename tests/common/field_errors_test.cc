// field_errors_test.cc: every invalid-field problem has one shape: each error in `errors`, the first in detail.
#include "common/field_errors.h"

#include <catch2/catch.hpp>

using namespace lab;

TEST_CASE("FieldErrors lists every error in the order found and names the first in detail", "[field_errors]") {
  FieldErrors errors;
  CHECK(errors.empty());
  errors.add("amount", "is required");
  errors.add("currency", "is required");
  CHECK_FALSE(errors.empty());
  const Problem problem = errors.to_problem();
  CHECK(problem.type == ProblemType::InvalidField);
  CHECK(problem.status() == 400);
  CHECK(problem.detail == "amount: is required");
  CHECK(problem.extra["errors"] == nlohmann::json::parse(
                                       R"([{"field":"amount","reason":"is required"},
                                           {"field":"currency","reason":"is required"}])"));
}

TEST_CASE("field_problem is the invalid-field problem of one field", "[field_errors]") {
  FieldErrors one;
  one.add("(body)", "must be a JSON object");
  CHECK(field_problem("(body)", "must be a JSON object").to_json() == one.to_problem().to_json());
}

TEST_CASE("FieldErrors without an error is a bug, not an empty problem", "[field_errors]") {
  CHECK_THROWS_AS(FieldErrors().to_problem(), std::logic_error);
}
