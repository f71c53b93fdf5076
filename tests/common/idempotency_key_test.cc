// idempotency_key_test.cc: the Idempotency-Key header is read as an RFC 8941 sf-string, and every
// malformed header has its own 400.
#include "common/idempotency_key.h"

#include <catch2/catch.hpp>

using namespace lab;

namespace {

std::variant<std::string, Problem> parse(std::vector<std::string_view> lines) { return parse_idempotency_key(lines); }
std::variant<std::string, Problem> parse(std::string_view line) { return parse(std::vector<std::string_view>{line}); }

std::string key_of(std::string_view line) {
  auto result = parse(line);
  REQUIRE(std::holds_alternative<std::string>(result));
  return std::get<std::string>(result);
}

ProblemType problem_of(std::variant<std::string, Problem> result) {
  REQUIRE(std::holds_alternative<Problem>(result));
  CHECK(std::get<Problem>(result).status() == 400);
  return std::get<Problem>(result).type;
}

}  // namespace

TEST_CASE("a quoted sf-string key is unquoted", "[key]") {
  CHECK(key_of(R"("8e03978e-40d5-43e8-bc93-6894a57f9324")") == "8e03978e-40d5-43e8-bc93-6894a57f9324");
  CHECK(key_of(R"(  "spaced"  )") == "spaced");
}

TEST_CASE("the two sf-string escapes are honoured and nothing else", "[key]") {
  CHECK(key_of(R"("say \"hi\"")") == R"(say "hi")");
  CHECK(key_of(R"("back\\slash")") == R"(back\slash)");
  CHECK(problem_of(parse(R"("tab\t")")) == ProblemType::IdempotencyKeyMalformed);
  CHECK(problem_of(parse(R"("ends in \")")) == ProblemType::IdempotencyKeyMalformed);
}

TEST_CASE("a bare key is accepted literally, even a UUID that starts with a digit", "[key]") {
  CHECK(key_of("8e03978e-40d5-43e8-bc93-6894a57f9324") == "8e03978e-40d5-43e8-bc93-6894a57f9324");
  CHECK(key_of("abc") == key_of(R"("abc")"));
}

TEST_CASE("a missing header is its own 400", "[key]") {
  CHECK(problem_of(parse(std::vector<std::string_view>{})) == ProblemType::IdempotencyKeyMissing);
}

TEST_CASE("an empty header or an empty string is idempotency-key-empty", "[key]") {
  CHECK(problem_of(parse("")) == ProblemType::IdempotencyKeyEmpty);
  CHECK(problem_of(parse("   ")) == ProblemType::IdempotencyKeyEmpty);
  CHECK(problem_of(parse(R"("")")) == ProblemType::IdempotencyKeyEmpty);
}

TEST_CASE("a list of keys is refused", "[key]") {
  CHECK(problem_of(parse(R"("a", "b")")) == ProblemType::IdempotencyKeyList);
  CHECK(problem_of(parse("a,b")) == ProblemType::IdempotencyKeyList);
}

TEST_CASE("parameters on the key are refused", "[key]") {
  CHECK(problem_of(parse(R"("a";x=1)")) == ProblemType::IdempotencyKeyParameters);
  CHECK(problem_of(parse("a;x=1")) == ProblemType::IdempotencyKeyParameters);
}

TEST_CASE("two header lines are refused", "[key]") {
  CHECK(problem_of(parse(std::vector<std::string_view>{R"("a")", R"("a")"})) ==
        ProblemType::IdempotencyKeyRepeatedHeader);
}

TEST_CASE("255 characters are allowed, 256 are too long", "[key]") {
  std::string longest(255, 'k');
  CHECK(key_of("\"" + longest + "\"") == longest);
  CHECK(problem_of(parse("\"" + longest + "k\"")) == ProblemType::IdempotencyKeyTooLong);
  // The limit counts characters after unquoting: 255 escaped quotes are 510 bytes on the wire.
  std::string escaped;
  for (int i = 0; i < 255; ++i) escaped += "\\\"";
  CHECK(key_of("\"" + escaped + "\"").size() == 255);
}

TEST_CASE("non-ASCII and control characters are malformed", "[key]") {
  CHECK(problem_of(parse("\"caf\xc3\xa9\"")) == ProblemType::IdempotencyKeyMalformed);
  CHECK(problem_of(parse("caf\xc3\xa9")) == ProblemType::IdempotencyKeyMalformed);
  CHECK(problem_of(parse("\"a\x01\"")) == ProblemType::IdempotencyKeyMalformed);
}

TEST_CASE("an unterminated quote or trailing junk is malformed", "[key]") {
  CHECK(problem_of(parse(R"("open)")) == ProblemType::IdempotencyKeyMalformed);
  CHECK(problem_of(parse(R"("a"b)")) == ProblemType::IdempotencyKeyMalformed);
  CHECK(problem_of(parse(R"(a"b)")) == ProblemType::IdempotencyKeyMalformed);
  CHECK(problem_of(parse("two words")) == ProblemType::IdempotencyKeyMalformed);
}
