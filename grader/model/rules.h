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

// The stage whose lesson the rule is: the stage whose chapter states it (lessons.h kLessons: M7 is stage 2's,
// M9 stage 3's), 0 for a rule of the reference chapters (the contract every stage keeps: M1-M6, M14, M18-M21).
// A server refused by the rule lacks that lesson: stageN.conformance credits its finding to it.
int rule_stage(std::string_view id);

}  // namespace grader::model
