// admin_requests_test.cc: the admin endpoints' inputs are validated apart from their routes
// (common/admin_requests.h), so every refusal is a 400 with its field, and what is accepted is in range.
// fuzz/admin_input_fuzz.cc checks the same properties on inputs it makes up.
#include "common/admin_requests.h"

#include <catch2/catch.hpp>

#include "common/lab_clock.h"

using namespace lab;
using nlohmann::json;

namespace {

// The field a refusal names: the first of its invalid-field errors.
template <typename T>
std::string refused_field(const std::variant<T, Problem>& result) {
  REQUIRE(std::holds_alternative<Problem>(result));
  const Problem& problem = std::get<Problem>(result);
  CHECK(problem.status() == 400);
  const json& first = problem.extra["errors"][0];
  return first["field"].get<std::string>();
}

}  // namespace

TEST_CASE("an admin body must be a JSON object sent as application/json", "[admin]") {
  CHECK(std::get<Problem>(parse_json_object("text/plain", "{}")).type == ProblemType::UnsupportedMediaType);
  CHECK(std::get<Problem>(parse_json_object("application/json", "{\"a\":1,\"a\":2}")).type ==
        ProblemType::JsonDuplicateMember);
  CHECK(std::get<Problem>(parse_json_object("application/json", "[]")).type == ProblemType::InvalidField);
  CHECK(std::get<json>(parse_json_object("application/json; charset=utf-8", "{\"name\":\"a\"}"))["name"] == "a");
}

TEST_CASE("a client's name holds 1 to 100 bytes", "[admin]") {
  CHECK(std::get<std::string>(parse_new_client({{"name", "alice"}})) == "alice");
  CHECK(refused_field(parse_new_client({{"name", ""}})) == "name");
  CHECK(refused_field(parse_new_client({{"name", std::string(kMaxClientNameBytes + 1, 'a')}})) == "name");
  CHECK(refused_field(parse_new_client({{"name", 7}})) == "name");
}

TEST_CASE("an account takes integer ids and balances within 2^53 - 1 and a currency code", "[admin]") {
  auto account = std::get<NewAccount>(parse_new_account({{"client_id", 1}, {"balance", 0}, {"currency", "USD"}}));
  CHECK(account.client_id == 1);
  CHECK(account.balance == 0);
  CHECK(account.currency == "USD");
  CHECK(refused_field(parse_new_account({{"client_id", 1.0}, {"balance", 0}, {"currency", "USD"}})) == "client_id");
  CHECK(refused_field(parse_new_account({{"client_id", 1}, {"balance", -1}, {"currency", "USD"}})) == "balance");
  CHECK(refused_field(parse_new_account({{"client_id", 1}, {"balance", std::uint64_t{1} << 53},
                                         {"currency", "USD"}})) == "balance");
  CHECK(refused_field(parse_new_account({{"client_id", 1}, {"balance", 5}, {"currency", "usd"}})) == "currency");
}

TEST_CASE("the clock moves 0 to kMaxAdvanceMs milliseconds, never back", "[admin]") {
  CHECK(std::get<std::int64_t>(parse_clock_advance({{"advance_ms", 60000}})) == 60000);
  CHECK(std::get<std::int64_t>(parse_clock_advance({{"advance_ms", LabClock::kMaxAdvanceMs}})) ==
        LabClock::kMaxAdvanceMs);
  CHECK(refused_field(parse_clock_advance({{"advance_ms", -1}})) == "advance_ms");
  CHECK(refused_field(parse_clock_advance({{"advance_ms", "5"}})) == "advance_ms");
}

TEST_CASE("a ledger query takes whole numbers: after from 0, limit 1 to 1000", "[admin]") {
  auto defaults = std::get<LedgerQuery>(parse_ledger_query(std::nullopt, std::nullopt));
  CHECK(defaults.after == 0);
  CHECK(defaults.limit == kLedgerPageDefault);
  auto page = std::get<LedgerQuery>(parse_ledger_query("17", "1000"));
  CHECK(page.after == 17);
  CHECK(page.limit == 1000);
  CHECK(refused_field(parse_ledger_query("-1", std::nullopt)) == "after");
  CHECK(refused_field(parse_ledger_query("1x", std::nullopt)) == "after");
  CHECK(refused_field(parse_ledger_query(std::nullopt, "0")) == "limit");
  CHECK(refused_field(parse_ledger_query(std::nullopt, "99999999999999999999")) == "limit");
}
