// grader_parts_test.cc: the small parts: seeds, options, placeholders, check selection, report escaping.
#include <catch2/catch.hpp>
#include <set>

#include "grader/base/rng.h"
#include "grader/checks/check.h"
#include "grader/checks/runner.h"
#include "grader/cli/options.h"
#include "grader/report/junit_xml.h"
#include "grader/wire/server_process.h"
#include "grader/wire/target.h"

using namespace grader;

TEST_CASE("the same seed and check name draw the same inputs; another check draws others") {
  Rng a = Rng::for_check(42, "stage2.simultaneous-16"), b = Rng::for_check(42, "stage2.simultaneous-16");
  Rng c = Rng::for_check(42, "stage2.simultaneous-2");
  for (int i = 0; i < 100; ++i) {
    auto x = a.between(1, 1'000'000);
    CHECK(x == b.between(1, 1'000'000));
    CHECK(x >= 1);
    CHECK(x <= 1'000'000);
  }
  CHECK(Rng::for_check(42, "stage2.simultaneous-16").hex(16) != c.hex(16));
}

TEST_CASE("placeholders in the server command are filled everywhere they appear") {
  CHECK(fill_placeholders("srv --port {port} --db {db} --admin-token {admin_token} # {port}", 8080, "/tmp/x.db",
                          "adm") == "srv --port 8080 --db /tmp/x.db --admin-token adm # 8080");
}

TEST_CASE("the lease and key TTL are read from the server command, with the contract's defaults") {
  auto facts = facts_from_command("stage6 --port {port} --lease 20 --key-ttl 3600");
  CHECK(facts.lease_seconds == 20);
  CHECK(facts.key_ttl_seconds == 3600);
  CHECK(facts_from_command("stage1 --port {port}").lease_seconds == 30);
  CHECK(facts_from_command("stage1 --port {port}").key_ttl_seconds == 86'400);
}

TEST_CASE("a server of its own: the command's --lease and --key-ttl are replaced, the rest kept") {
  ServerFacts short_lease{.lease_seconds = 1, .key_ttl_seconds = 5};
  CHECK(command_with_facts("stage6 --port {port} --lease 20 --key-ttl 3600 --quiet", short_lease) ==
        "stage6 --port {port} --quiet --lease 1 --key-ttl 5");
  CHECK(command_with_facts("python3 s.py --lease=20 --db {db}", short_lease) ==
        "python3 s.py --db {db} --lease 1 --key-ttl 5");
  CHECK(command_with_facts("stage1 --port {port}", short_lease) == "stage1 --port {port} --lease 1 --key-ttl 5");
  auto back = facts_from_command(command_with_facts("stage6 --lease 20", short_lease));
  CHECK(back.lease_seconds == 1);
  CHECK(back.key_ttl_seconds == 5);
}

TEST_CASE("matrix --jobs takes 1 to 64 servers at once") {
  auto jobs = parse_grader_options({"matrix", "--bin-dir", "b", "--jobs", "3"});
  REQUIRE(std::holds_alternative<GraderOptions>(jobs));
  CHECK(std::get<GraderOptions>(jobs).jobs == 3);
  CHECK(std::holds_alternative<std::string>(parse_grader_options({"matrix", "--bin-dir", "b", "--jobs", "0"})));
  CHECK(std::holds_alternative<std::string>(parse_grader_options({"matrix", "--bin-dir", "b", "--jobs", "x"})));
}

TEST_CASE("options: --server or --url, not both; --url needs --admin-token; stages are 1 to 6") {
  auto parse = [](std::vector<std::string> args) { return parse_grader_options(args); };
  CHECK(std::holds_alternative<GraderOptions>(parse({"--stage", "3", "--server", "x"})));
  CHECK(std::holds_alternative<std::string>(parse({"--server", "x", "--url", "http://h:1"})));
  CHECK(std::holds_alternative<std::string>(parse({"--url", "http://h:1"})));
  CHECK(std::holds_alternative<std::string>(parse({"--stage", "7", "--server", "x"})));
  auto matrix = parse({"matrix", "--bin-dir", "build/stages"});
  REQUIRE(std::holds_alternative<GraderOptions>(matrix));
  CHECK(std::get<GraderOptions>(matrix).mode == GraderOptions::Mode::Matrix);
}

TEST_CASE("check names are unique and say their stage") {
  std::set<std::string> names;
  for (const auto& c : all_checks()) {
    CHECK(names.insert(c.name).second);
    CHECK(c.name.rfind("stage" + std::to_string(c.stage) + ".", 0) == 0);
  }
}

TEST_CASE("a selection runs the contract first, then the stages asked for") {
  auto all = all_checks();
  auto only3 = select_checks(all, Selection{6, 3, std::nullopt});
  REQUIRE_FALSE(only3.empty());
  CHECK(only3.front()->stage == 0);
  for (const auto* c : only3) CHECK((c->stage == 0 || c->stage == 3));
  auto one = select_checks(all, Selection{6, std::nullopt, std::string("stage4.crash-before-money")});
  CHECK(one.back()->name == "stage4.crash-before-money");
  CHECK(select_checks(all, Selection{6, std::nullopt, std::string("no.such-check")}).empty());
}

TEST_CASE("XML escaping keeps the document well-formed, whatever bytes a body held") {
  CHECK(xml_escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;");
  CHECK(xml_escape("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(xml_escape("bad \xff byte\x01") == "bad ? byte?");
}
