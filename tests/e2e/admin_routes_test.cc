// admin_routes_test.cc: the routes every stage shares (common/common_routes.cc) refuse what is out of their
// limits with an invalid-field problem that names the limit. Run on stage 1: the routes are the same in all.
#include <catch2/catch.hpp>

#include <string>

#include "tests/e2e/world.h"

using namespace lab::testing;

namespace {

// The `errors` member of an invalid-field problem+json reply.
nlohmann::json field_errors_of(const Reply& reply) {
  REQUIRE(reply.status == 400);
  REQUIRE(reply.header("Content-Type") == "application/problem+json");
  REQUIRE(reply.json()["type"] == "/problems/invalid-field");
  return reply.json()["errors"];
}

nlohmann::json one_error(const std::string& field, const std::string& reason) {
  return nlohmann::json::array({{{"field", field}, {"reason", reason}}});
}

}  // namespace

TEST_CASE("POST /admin/clients refuses a name over 100 bytes and says so", "[e2e][admin]") {
  World w("stage1_naive");
  CHECK(w.admin.post("/admin/clients", nlohmann::json{{"name", std::string(100, 'n')}}.dump()).status == 201);
  auto reply = w.admin.post("/admin/clients", nlohmann::json{{"name", std::string(101, 'n')}}.dump());
  CHECK(field_errors_of(reply) == one_error("name", "must be a string of 1 to 100 bytes"));
}

TEST_CASE("POST /admin/accounts tells a wrong currency what a currency code is", "[e2e][admin]") {
  World w("stage1_naive");
  auto reply = w.admin.post("/admin/accounts",
                            nlohmann::json{{"client_id", w.alice.id}, {"balance", 0}, {"currency", "EURO"}}.dump());
  CHECK(field_errors_of(reply) ==
        one_error("currency", R"(must be a currency code: exactly three upper-case letters, as in ISO 4217 (e.g. "USD"))"));
}

TEST_CASE("GET /admin/ledger names each bad query parameter and the page limit", "[e2e][admin]") {
  World w("stage1_naive");
  CHECK(w.admin.get("/admin/ledger?limit=1000").status == 200);
  CHECK(field_errors_of(w.admin.get("/admin/ledger?limit=1001")) ==
        one_error("limit", "must be a whole number of entries from 1 to 1000"));
  auto both = field_errors_of(w.admin.get("/admin/ledger?after=-1&limit=0"));
  REQUIRE(both.size() == 2);
  CHECK(both[0]["field"] == "after");
  CHECK(both[1]["field"] == "limit");
}

TEST_CASE("POST /admin/clock takes a step of at most 2^53 - 1 ms", "[e2e][admin]") {
  World w("stage1_naive");
  const std::int64_t largest = (std::int64_t{1} << 53) - 1;
  CHECK(field_errors_of(w.admin.post("/admin/clock", nlohmann::json{{"advance_ms", largest + 1}}.dump())) ==
        one_error("advance_ms", "must be a whole number of milliseconds from 0 to " + std::to_string(largest)));
  CHECK(w.admin.post("/admin/clock", nlohmann::json{{"advance_ms", largest}}.dump()).status == 200);
}
