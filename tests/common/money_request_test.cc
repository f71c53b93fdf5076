// money_request_test.cc: every malformed transfer or payout body is refused with the right problem, before
// anything touches the database.
#include "common/money_request.h"

#include "common/request_metadata.h"

#include <catch2/catch.hpp>

using namespace lab;

namespace {

constexpr const char* kJson = "application/json";

std::variant<MoneyRequest, Problem> transfer(const std::string& body, const char* content_type = kJson) {
  return parse_money_request(content_type, body, Endpoint::Transfers);
}

// A transfer from account 1 to 2 of `amount` (as spelled) in USD, plus `more` members (",\"metadata\":...").
std::variant<MoneyRequest, Problem> transfer_of(const std::string& amount, const std::string& more = "") {
  return transfer(R"({"from_account":1,"to_account":2,"amount":)" + amount + R"(,"currency":"USD")" + more + "}");
}

// A transfer from account 1 to 2 of 1 with this "currency" member (or none: "").
std::variant<MoneyRequest, Problem> transfer_in(const std::string& currency_member) {
  return transfer(R"({"from_account":1,"to_account":2,"amount":1)" + currency_member + "}");
}

// A copy, not a reference: the callers pass a temporary.
MoneyRequest accepted(const std::variant<MoneyRequest, Problem>& result) {
  if (const auto* problem = std::get_if<Problem>(&result)) FAIL_CHECK(problem->detail);
  REQUIRE(std::holds_alternative<MoneyRequest>(result));
  return std::get<MoneyRequest>(result);
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

// The reasons of all errors, for invalid-field problems.
std::vector<std::string> reasons_of(const std::variant<MoneyRequest, Problem>& result) {
  REQUIRE(problem_of(result) == ProblemType::InvalidField);
  std::vector<std::string> reasons;
  for (const auto& error : std::get<Problem>(result).extra["errors"]) reasons.push_back(error["reason"]);
  return reasons;
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

TEST_CASE("a wrong currency is told what a currency code is, whatever is wrong with it", "[validation]") {
  const std::vector<std::string> rule = {
      R"(must be a currency code: exactly three upper-case letters, as in ISO 4217 (e.g. "USD"))"};
  CHECK(reasons_of(transfer_in(R"(,"currency":"EURO")")) == rule);   // not "must be at most 3 bytes"
  CHECK(reasons_of(transfer_in(R"(,"currency":"eu")")) == rule);
  CHECK(reasons_of(transfer_in(R"(,"currency":"eur")")) == rule);
  CHECK(reasons_of(transfer_in(R"(,"currency":"")")) == rule);
  CHECK(reasons_of(transfer_in(R"(,"currency":840)")) == rule);   // ISO 4217's numeric code for USD
  CHECK(std::get<Problem>(transfer_in(R"(,"currency":"EURO")")).detail == "currency: " + rule[0]);
}

TEST_CASE("a missing currency is told it is required", "[validation]") {
  CHECK(field_of(transfer_in("")) == "currency");
  CHECK(reasons_of(transfer_in("")) == std::vector<std::string>{"is required"});
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

// ---------------------------------------------------------------------------------------------
// Integer fields: one number, any spelling
// ---------------------------------------------------------------------------------------------

TEST_CASE("an amount may be written in any JSON spelling of its integer, and is one canonical form", "[validation]") {
  const auto plain = accepted(transfer_of("1500"));
  for (const char* spelling : {"1500.0", "1.5e3", "15E2", "1.5E+3", "15000e-1", "1500.000", "0.15e4"}) {
    INFO(spelling);
    const auto same = accepted(transfer_of(spelling));
    CHECK(same.amount == 1500);
    CHECK(same.canonical_body == plain.canonical_body);
  }
}

TEST_CASE("account ids may be written as N.0 or with an exponent too", "[validation]") {
  const auto r = accepted(transfer(R"({"from_account":1.0,"to_account":2e0,"amount":1,"currency":"USD"})"));
  CHECK(r.from_account == 1);
  CHECK(r.to_account == 2);
  CHECK(r.canonical_body == accepted(transfer(R"({"from_account":1,"to_account":2,"amount":1,"currency":"USD"})"))
                                .canonical_body);
  // The same account in two spellings is still the same account.
  CHECK(field_of(transfer(R"({"from_account":3,"to_account":3.0,"amount":1,"currency":"USD"})")) == "to_account");
}

TEST_CASE("a number with a fraction, zero or a negative is refused in every spelling", "[validation]") {
  for (const char* spelling : {"1500.5", "1.5", "15.005e2", "0.0", "0e5", "-0", "-0.0", "-1.5e3", "1e-1"}) {
    INFO(spelling);
    CHECK(field_of(transfer_of(spelling)) == "amount");
  }
}

TEST_CASE("an integral value beyond 2^53 - 1 is refused in every spelling", "[validation]") {
  for (const char* spelling : {"1e16", "9007199254740992.0", "9.007199254740992e15", "1e300", "9007199254740993",
                               "18446744073709551616", "100000000000000000000000"}) {
    INFO(spelling);
    CHECK(field_of(transfer_of(spelling)) == "amount");
  }
  CHECK(accepted(transfer_of("9007199254740991.0")).amount == 9007199254740991);
  CHECK(accepted(transfer_of("9.007199254740991e15")).amount == 9007199254740991);
}

TEST_CASE("the parsed value decides, not the spelling: what a double reads as 1500 is 1500", "[validation]") {
  // The nearest double to 1500.0000000000000001 is 1500, so its canonical form (the fingerprint's input) is
  // the canonical form of 1500: accepting one and refusing the other would split one fingerprint in two.
  const auto r = accepted(transfer_of("1500.0000000000000001"));
  CHECK(r.amount == 1500);
  CHECK(r.canonical_body == accepted(transfer_of("1500")).canonical_body);
}

TEST_CASE("a number too large for a double is still a json-number-out-of-range, not a field error", "[validation]") {
  CHECK(problem_of(transfer_of("1e400")) == ProblemType::JsonNumberOutOfRange);
}

// ---------------------------------------------------------------------------------------------
// metadata
// ---------------------------------------------------------------------------------------------

TEST_CASE("metadata is optional; absent, the request has none", "[validation][metadata]") {
  CHECK_FALSE(accepted(transfer_of("1")).metadata);
}

TEST_CASE("metadata of any JSON values is accepted on transfers and payouts and kept in canonical form",
          "[validation][metadata]") {
  const auto r = accepted(transfer_of("1", R"(,"metadata":{"order":"A-17","rate":1e-1,"n":15E2,"tags":["x",null,true]})"));
  REQUIRE(r.metadata);
  CHECK(*r.metadata == R"({"n":1500,"order":"A-17","rate":0.1,"tags":["x",null,true]})");
  auto payout = parse_money_request(
      kJson, R"({"from_account":1,"amount":5,"currency":"EUR","destination":"IBAN DE89","metadata":{"k":"v"}})",
      Endpoint::Payouts);
  CHECK(accepted(payout).metadata == std::optional<std::string>(R"({"k":"v"})"));
  CHECK(accepted(transfer_of("1", R"(,"metadata":{})")).metadata == std::optional<std::string>("{}"));
}

TEST_CASE("the same metadata spelled differently is the same request; a changed value is another",
          "[validation][metadata]") {
  // Keys outside the BMP in other orders, \u escapes against raw UTF-8, 0.1 / 1e-1 / 1E-1, 1e21 written out.
  const std::string first =
      R"(,"metadata":{"rate":0.1,"big":1e21,"\ud83d\ude00":"smile","ﬁ":"caf\u00e9","n":3})";
  const std::string same =
      ",\"metadata\":{\"n\":3.0,\"\xef\xac\x81\":\"caf\xc3\xa9\",\"\xf0\x9f\x98\x80\":\"smile\",\"big\":"
      "1000000000000000000000,\"rate\":1E-1}";
  const std::string changed = R"(,"metadata":{"rate":0.2,"big":1e21,"\ud83d\ude00":"smile","ﬁ":"café","n":3})";
  const auto a = accepted(transfer_of("1500", first));
  const auto b = accepted(transfer_of("1.5e3", same));
  CHECK(a.canonical_body == b.canonical_body);
  CHECK(a.metadata == b.metadata);
  CHECK(a.canonical_body != accepted(transfer_of("1500", changed)).canonical_body);
  // RFC 8785 orders member names by UTF-16 code units: U+1F600 (D83D DE00) before U+FB01.
  CHECK(a.metadata->find("\xf0\x9f\x98\x80") < a.metadata->find("\xef\xac\x81"));
}

TEST_CASE("metadata must be an object", "[validation][metadata]") {
  for (const char* value : {"null", "[]", "\"order 17\"", "17"}) {
    INFO(value);
    CHECK(field_of(transfer_of("1", std::string(",\"metadata\":") + value)) == "metadata");
  }
}

namespace {
std::string metadata_of_keys(std::size_t count) {
  std::string object = "{";
  for (std::size_t i = 0; i < count; ++i) object += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
  return ",\"metadata\":" + object + "}";
}
std::string repeated(const std::string& text, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += text;
  return out;
}
}  // namespace

TEST_CASE("metadata holds at most 20 keys", "[validation][metadata]") {
  accepted(transfer_of("1", metadata_of_keys(kMaxMetadataKeys)));
  CHECK(field_of(transfer_of("1", metadata_of_keys(kMaxMetadataKeys + 1))) == "metadata");
}

TEST_CASE("a metadata key has 1 to 40 characters, counted as code points, not bytes", "[validation][metadata]") {
  const std::string e_acute = "\xc3\xa9";    // 2 bytes, 1 code point
  const std::string emoji = "\xf0\x9f\x98\x80";   // 4 bytes, 1 code point (2 UTF-16 code units)
  accepted(transfer_of("1", ",\"metadata\":{\"" + repeated(e_acute, kMaxMetadataKeyCodePoints) + "\":1}"));
  accepted(transfer_of("1", ",\"metadata\":{\"" + repeated(emoji, kMaxMetadataKeyCodePoints) + "\":1}"));
  CHECK(field_of(transfer_of("1", ",\"metadata\":{\"" + repeated("k", kMaxMetadataKeyCodePoints + 1) + "\":1}")) ==
        "metadata");
  CHECK(field_of(transfer_of("1", ",\"metadata\":{\"" + repeated(emoji, kMaxMetadataKeyCodePoints + 1) + "\":1}")) ==
        "metadata");
  CHECK(field_of(transfer_of("1", R"(,"metadata":{"":1})")) == "metadata");
  CHECK(code_points("a\xc3\xa9\xf0\x9f\x98\x80") == 3);
}

TEST_CASE("metadata nests at most 3 levels, counting itself", "[validation][metadata]") {
  accepted(transfer_of("1", R"(,"metadata":{"items":[{"sku":"x"}]})"));
  accepted(transfer_of("1", R"(,"metadata":{"a":{"b":[]}})"));
  CHECK(field_of(transfer_of("1", R"(,"metadata":{"items":[{"sku":["x"]}]})")) == "metadata");
  CHECK(field_of(transfer_of("1", R"(,"metadata":{"a":[[[]]]})")) == "metadata");
}

TEST_CASE("metadata is at most 2 KiB in canonical form, however the body spells it", "[validation][metadata]") {
  // {"v":"xxx..."} is 8 bytes around the value.
  const std::size_t fits = kMaxMetadataBytes - 8;
  accepted(transfer_of("1", ",\"metadata\":{\"v\":\"" + std::string(fits, 'x') + "\"}"));
  CHECK(field_of(transfer_of("1", ",\"metadata\":{\"v\":\"" + std::string(fits + 1, 'x') + "\"}")) == "metadata");
  // Written as \u0078 escapes the body is six times longer, but the value, and so the verdict, is the same.
  accepted(transfer_of("1", ",\"metadata\":{\"v\":\"" + repeated("\\u0078", fits) + "\"}"));
}

TEST_CASE("every metadata fault is listed, beside the other fields' errors", "[validation][metadata]") {
  std::string object = "{\"" + repeated("k", kMaxMetadataKeyCodePoints + 1) + "\":1,\"deep\":[[[1]]]";
  for (std::size_t i = 0; i < kMaxMetadataKeys; ++i) object += ",\"k" + std::to_string(i) + "\":1";
  auto reasons = reasons_of(transfer_of("0", ",\"metadata\":" + object + "}"));
  CHECK(reasons.size() == 4);   // amount, too many keys, a long key, too deep
}
