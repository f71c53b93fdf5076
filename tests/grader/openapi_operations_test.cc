// openapi_operations_test.cc: failure reports name the right openapi.yaml operation, and every operation
// the grader names exists in openapi.yaml.
#include "grader/wire/openapi_operations.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace grader;

TEST_CASE("a request line is mapped to its openapi.yaml operationId") {
  CHECK(openapi_operation("POST /transfers HTTP/1.1") == "createTransfer");
  CHECK(openapi_operation("POST /payouts\nAuthorization: Bearer x") == "createPayout");
  CHECK(openapi_operation("GET /accounts/42") == "getAccount");
  CHECK(openapi_operation("GET /admin/ledger?after=3&limit=10 HTTP/1.1") == "listLedger");
  CHECK(openapi_operation("GET /accounts/42/extra").empty());
  CHECK(openapi_operation("GET /transfers").empty());
  CHECK(openapi_operation("nonsense").empty());
}

TEST_CASE("every operationId the grader names is declared in openapi.yaml") {
  std::ifstream file(std::string(LAB_SOURCE_DIR) + "/openapi.yaml");
  REQUIRE(file);
  std::stringstream text;
  text << file.rdbuf();
  for (const auto& op : openapi_operations())
    CHECK(text.str().find("operationId: " + std::string(op.operation_id) + "\n") != std::string::npos);
}
