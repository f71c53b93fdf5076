// world.h: a running server with one client, alice, who owns two USD accounts: the usual start of a test.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e/stage_process.h"

namespace lab::testing {

struct World {
  explicit World(const std::string& binary, std::vector<std::string> extra_args = {}, std::int64_t opening = 10'000)
      : server(binary, std::move(extra_args)),
        admin(server.admin()),
        alice(admin.create_client("alice")),
        from(admin.create_account(alice.id, opening)),
        to(admin.create_account(alice.id, 0)) {}

  StageProcess server;
  LabClient admin;
  LabClient alice;
  std::int64_t from;
  std::int64_t to;

  std::size_t transfers() const { return admin.ledger().size(); }
  std::string body(std::int64_t amount, const std::string& memo = "test") const {
    return nlohmann::json{{"from_account", from}, {"to_account", to}, {"amount", amount}, {"currency", "USD"},
                          {"memo", memo}}.dump();
  }
  Reply send(const std::string& key, const std::string& raw_body, httplib::Headers extra = {}) const {
    extra.emplace("Idempotency-Key", "\"" + key + "\"");
    return alice.post("/transfers", raw_body, extra);
  }
};

}  // namespace lab::testing
