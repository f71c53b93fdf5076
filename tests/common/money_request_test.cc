// money_request_test.cc: every malformed transfer or payout body is refused with the right problem, before
// anything touches the database.
#include "common/money_request.h"

#include <catch2/catch.hpp>

using namespace lab;

namespace {

constexpr const char* kJson = "application/json";

std::variant<MoneyRequest, Problem> transfer(const std::string& body, const char* content_type = kJson) {
  return parse_money_request(content_type, body, Endpoint::Transfers);
}

ProblemType problem_of(const std::variant<MoneyRequest, Problem>& result) {
  REQUIRE(std::holds_alternative<Problem>(result));
  return std::get<Problem>(result).type;
}

// The field that the first error names, for invalid-field problems.
std::string field_of(const std::variant<MoneyRequest, Problem>& result) {
  REQUIRE(problem_of(result) == ProblemType::InvalidField);
  return std::get<Problem>(result).extra["errors"][0]["field"].get<std::string>();
}

}  // namespace

TEST_CASE("a valid transfer body is accepted with all its fields", "[validation]") {
  auto result = transfer(R"({"from_account":1,"to_account":2,"amount":1500,"currency":"USD","memo":"rent"})");
  REQUIRE(std::holds_alternative<MoneyRequest>(result));
  const auto& r = std::get<MoneyRequest>(result);
  CHECK(r.from_account == 1);
  CHECK(r.to_account == 2);
  CHECK(r.amount == 1500);
  CHECK(r.currency == "USD");
  CHECK(r.memo == "rent");
  CHECK(r.canonical_body == R"({"amount":1500,"currency":"USD","from_account":1,"memo":"rent","to_account":2})");
}

TEST_CASE("the memo is optional", "[validation]") {
  auto result = transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USD"})");
  REQUIRE(std::holds_alternative<MoneyRequest>(result));
  CHECK(std::get<MoneyRequest>(result).memo.empty());
}

TEST_CASE("a valid payout body is accepted", "[validation]") {
  auto result = parse_money_request(
      kJson, R"({"from_account":1,"amount":5,"currency":"EUR","destination":"IBAN DE89","memo":""})", Endpoint::Payouts);
  REQUIRE(std::holds_alternative<MoneyRequest>(result));
  CHECK(std::get<MoneyRequest>(result).destination == "IBAN DE89");
  CHECK_FALSE(std::get<MoneyRequest>(result).to_account);
}

TEST_CASE("each missing field is named", "[validation]") {
  CHECK(field_of(transfer(R"({"to_account":2,"amount":1,"currency":"USD"})")) == "from_account");
  CHECK(field_of(transfer(R"({"from_account":1,"amount":1,"currency":"USD"})")) == "to_account");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1})")) == "currency");
  CHECK(field_of(parse_money_request(kJson, R"({"from_account":1,"amount":1,"currency":"USD"})", Endpoint::Payouts)) ==
        "destination");
}

TEST_CASE("fields of the wrong type are refused", "[validation]") {
  CHECK(field_of(transfer(R"({"from_account":"1","to_account":2,"amount":1,"currency":"USD"})")) == "from_account");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":"1","currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1.5,"currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":10.0,"currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":true,"currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":840})")) == "currency");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USD","memo":7})")) == "memo");
}

TEST_CASE("zero and negative and over-2^53 amounts are refused", "[validation]") {
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":0,"currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":-5,"currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":9007199254740992,"currency":"USD"})")) == "amount");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":18446744073709551615,"currency":"USD"})")) ==
        "amount");
  auto largest = transfer(R"({"from_account":1,"to_account":2,"amount":9007199254740991,"currency":"USD"})");
  CHECK(std::holds_alternative<MoneyRequest>(largest));
}

TEST_CASE("a transfer to the same account is refused", "[validation]") {
  CHECK(field_of(transfer(R"({"from_account":3,"to_account":3,"amount":1,"currency":"USD"})")) == "to_account");
}

TEST_CASE("a currency must be three upper-case letters", "[validation]") {
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"usd"})")) == "currency");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"US"})")) == "currency");
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USDT"})")) == "currency");
}

TEST_CASE("unknown fields are refused, so a typo cannot pass silently", "[validation]") {
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"ammount":1,"amount":1,"currency":"USD"})")) == "ammount");
}

TEST_CASE("all field errors are listed at once", "[validation]") {
  auto result = transfer(R"({"from_account":0,"to_account":"x","amount":-1})");
  REQUIRE(problem_of(result) == ProblemType::InvalidField);
  CHECK(std::get<Problem>(result).extra["errors"].size() == 4);
}

TEST_CASE("a body that is not a JSON object is refused", "[validation]") {
  CHECK(field_of(transfer("[1,2,3]")) == "(body)");
  CHECK(field_of(transfer("42")) == "(body)");
}

TEST_CASE("a body that is not JSON at all is a 400 json-syntax", "[validation]") {
  CHECK(problem_of(transfer("{\"from_account\":1,")) == ProblemType::JsonSyntax);
  CHECK(problem_of(transfer("")) == ProblemType::JsonSyntax);
  CHECK(info(ProblemType::JsonSyntax).status == 400);
}

TEST_CASE("duplicate member names are refused: which amount would be meant?", "[validation]") {
  CHECK(problem_of(transfer(R"({"from_account":1,"to_account":2,"amount":1,"amount":900,"currency":"USD"})")) ==
        ProblemType::JsonDuplicateMember);
}

TEST_CASE("a body that is not application/json is a 415", "[validation]") {
  auto result = transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USD"})", "text/plain");
  CHECK(problem_of(result) == ProblemType::UnsupportedMediaType);
  CHECK(std::get<Problem>(result).status() == 415);
  CHECK(problem_of(transfer("{}", "")) == ProblemType::UnsupportedMediaType);
  CHECK(std::holds_alternative<MoneyRequest>(
      transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USD"})", "Application/JSON; charset=utf-8")));
}

TEST_CASE("an oversized body is a 413, whatever it holds", "[validation]") {
  std::string memo(kMaxBodyBytes, 'x');
  auto result = transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USD","memo":")" + memo + "\"}");
  CHECK(problem_of(result) == ProblemType::BodyTooLarge);
  CHECK(std::get<Problem>(result).status() == 413);
}

TEST_CASE("a memo over 200 bytes is refused", "[validation]") {
  std::string memo(kMaxMemoBytes + 1, 'x');
  CHECK(field_of(transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USD","memo":")" + memo + "\"}")) ==
        "memo");
}

TEST_CASE("validation errors are 400 and never 422", "[validation]") {
  for (const auto& type : problem_registry())
    if (type.slug.starts_with("json-") || type.slug == "invalid-field") CHECK(type.status == 400);
}
