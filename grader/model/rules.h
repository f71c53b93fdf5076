// rules.h: the model's numbered rules as data (the text of contract.h's list), so a judgement names the
// rule it applied and the chapter section that states it.
#pragma once

#include <string_view>

namespace grader::model {

struct Rule {
  const char* id;       // "M7"
  const char* text;
  const char* chapter;  // docs/... "Heading"
};

const Rule& rule(std::string_view id);  // an unknown id is a bug of the model: it aborts

}  // namespace grader::model
