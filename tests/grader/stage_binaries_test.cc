// stage_binaries_test.cc: the grader's list of stage servers is stages/stage_servers.json's, and it finds a
// server by the names the subcommands accept.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "grader/base/stage_binaries.h"
#include "grader/demo/demo_scenarios.h"

using namespace grader;

namespace {

nlohmann::json table_rows() {
  std::ifstream in(std::string(LAB_SOURCE_DIR) + "/stages/stage_servers.json");
  return nlohmann::json::parse(in).at("servers");
}

}  // namespace

TEST_CASE("the grader's stage servers are the rows of stages/stage_servers.json, field for field, in order") {
  const auto rows = table_rows();
  const auto& servers = stage_servers();
  REQUIRE(servers.size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO(rows[i].at("binary"));
    CHECK(servers[i].binary == rows[i].at("binary"));
    CHECK(servers[i].label == rows[i].at("label"));
    CHECK(servers[i].name == rows[i].at("name"));
    CHECK(servers[i].title == rows[i].at("title"));
    CHECK(servers[i].stage == rows[i].at("stage"));
    CHECK(servers[i].must_fail.has_value() == !rows[i].at("must_fail").is_null());
    if (servers[i].must_fail) CHECK(*servers[i].must_fail == rows[i].at("must_fail"));
  }
}

TEST_CASE("a stage is found by its number, binary or label, a wrong turn by its binary or label, never a number") {
  REQUIRE(find_stage_server("3") != nullptr);
  CHECK(find_stage_server("3")->binary == "stage3_fingerprint");
  CHECK(find_stage_server("s3") == find_stage_server("3"));
  CHECK(find_stage_server("stage3_fingerprint") == find_stage_server("3"));
  const StageServer* wrong_turn = find_stage_server("w-raw");
  REQUIRE(wrong_turn != nullptr);
  CHECK(wrong_turn == find_stage_server("wrong_raw_fingerprint"));
  CHECK(wrong_turn->must_fail);
  CHECK(find_stage_server("no_such_server") == nullptr);
  CHECK(find_stage_binary("no_such_server", "/nonexistent") == std::nullopt);
  CHECK(find_stage_binary("3", "/nonexistent") == std::nullopt);  // known, but not built there
}

TEST_CASE("each demo stand is a stage server, named as the table names it") {
  for (const auto& scenario : demo_scenarios())
    for (const auto& stand : {std::optional<DemoStand>(scenario.flawed), scenario.fixing})
      if (stand) {
        const StageServer* server = find_stage_server(stand->binary);
        REQUIRE(server != nullptr);
        CHECK(stand->label == server->name);
      }
}
