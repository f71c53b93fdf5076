// model_keys_test.cc: the model's Idempotency-Key grammar (grader/model/keys.cc) and body rules
// (grader/model/money_request.cc), as docs/reference/http-contract.md states them.
#include "grader/model/keys.h"
#include "grader/model/money_request.h"

#include <string>

#include <catch2/catch.hpp>

using namespace grader::model;

namespace {
std::string key_of(std::vector<std::string> values) {
  KeyHeader k = read_idempotency_key(values);
  REQUIRE(k.ok);
  return k.key;
}
std::string problem_of(std::vector<std::string> values) {
  KeyHeader k = read_idempotency_key(values);
  REQUIRE_FALSE(k.ok);
  return k.problems.front();
}
}  // namespace

TEST_CASE("a key is an sf-string or a bare token, compared byte for byte after unquoting") {
  CHECK(key_of({"\"abc\""}) == "abc");
  CHECK(key_of({"abc"}) == "abc");
  CHECK(key_of({"  \"abc\"  "}) == "abc");          // spaces around the value are not the key's
  CHECK(key_of({"\" abc \""}) == " abc ");           // spaces inside the quotes are
  CHECK(key_of({"\"   \""}) == "   ");               // a key of spaces is a key
  CHECK(key_of({R"("a\"b\\c")"}) == R"(a"b\c)");
  CHECK(key_of({"\"" + std::string(255, 'k') + "\""}).size() == 255);
}

TEST_CASE("each malformed key has its own problem type") {
  CHECK(problem_of({}) == "idempotency-key-missing");
  CHECK(problem_of({"a", "b"}) == "idempotency-key-repeated-header");
  CHECK(problem_of({"\"\""}) == "idempotency-key-empty");
  CHECK(problem_of({"   "}) == "idempotency-key-empty");
  CHECK(problem_of({"\"a\", \"b\""}) == "idempotency-key-list");
  CHECK(problem_of({"\"a\";x=1"}) == "idempotency-key-parameters");
  CHECK(problem_of({"\"" + std::string(256, 'k') + "\""}) == "idempotency-key-too-long");
  CHECK(problem_of({"\"abc"}) == "idempotency-key-malformed");
  CHECK(problem_of({R"("a\b")"}) == "idempotency-key-malformed");
  CHECK(problem_of({"\"caf\xC3\xA9\""}) == "idempotency-key-malformed");
  // An empty header line: missing in the lab's servers, empty in another language; both allowed.
  CHECK(read_idempotency_key({""}).problems.size() == 2);
}

TEST_CASE("body rules: amounts by value, unknown members refused, order 415 413 400") {
  auto read = [](std::string_view body, std::string_view type = "application/json") {
    return read_money_body(Endpoint::Transfers, type, body);
  };
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":1.5e3,"currency":"USD"})").request.amount == 1500);
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":1500,"currency":"USD"})", "Application/JSON; charset=utf-8").status == 0);
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":1500.5,"currency":"USD"})").problem == "invalid-field");
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":1e16,"currency":"USD"})").problem == "invalid-field");
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":-0,"currency":"USD"})").problem == "invalid-field");
  CHECK(read(R"({"from_account":1,"to_account":1,"amount":5,"currency":"USD"})").problem == "invalid-field");
  CHECK(read(R"({"from_account":1,"to_account":2,"ammount":5,"currency":"USD"})").problem == "invalid-field");
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":5,"currency":"usd"})").problem == "invalid-field");
  CHECK(read(R"({"amount":1,"amount":2})").problem == "json-duplicate-member");
  CHECK(read("{}", "text/plain").status == 415);
  CHECK(read(std::string(kMaxMoneyBody + 1, ' ')).status == 413);
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":5,"currency":"USD","metadata":{"a":{"b":{"c":{}}}}})").problem == "invalid-field");
  CHECK(read(R"({"from_account":1,"to_account":2,"amount":5,"currency":"USD","metadata":{"a":{"b":[1]}}})").status == 0);
}
