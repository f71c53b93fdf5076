// field_errors.cc: see field_errors.h.
#include "common/field_errors.h"

#include <stdexcept>
#include <string>

namespace lab {

void FieldErrors::add(std::string_view field, std::string_view reason) {
  errors_.push_back({{"field", field}, {"reason", reason}});
}

Problem FieldErrors::to_problem() const {
  if (errors_.empty()) throw std::logic_error("FieldErrors::to_problem without an error");
  const auto& first = errors_.front();
  Problem problem = Problem::Of(ProblemType::InvalidField,
                                first["field"].get<std::string>() + ": " + first["reason"].get<std::string>());
  problem.extra["errors"] = errors_;
  return problem;
}

Problem field_problem(std::string_view field, std::string_view reason) {
  FieldErrors errors;
  errors.add(field, reason);
  return errors.to_problem();
}

}  // namespace lab
