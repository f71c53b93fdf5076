// target_test.cc: the server being graded as several instances (--url a,b,c, each request to the next one)
// and as a server on a database server ({db_name}). grader/wire/target.h, grader/wire/server_process.h.
#include <catch2/catch.hpp>
#include <map>
#include <thread>
#include <vector>

#include "grader/wire/server_process.h"
#include "grader/wire/target.h"
#include "tests/common/temp_dir.h"

using namespace grader;

namespace {

std::vector<Address> three_instances() {
  return {{"127.0.0.1", 8001}, {"127.0.0.1", 8002}, {"127.0.0.1", 8003}};
}

std::vector<Address> parsed_or_fail(const std::string& list) {
  auto parsed = parse_urls(list);
  if (auto* error = std::get_if<std::string>(&parsed)) FAIL(list << ": " << *error);
  return std::get<std::vector<Address>>(parsed);
}

std::string error_of(const std::string& list) {
  auto parsed = parse_urls(list);
  return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
}

// A Python server that answers GET /healthz: enough for Target::launch, in any build.
std::string python_server(const std::string& db_argument) {
  return std::string("python3 ") + LAB_SOURCE_DIR + "/examples/python/stage1_server.py --port {port} --db " +
         db_argument + " --admin-token {admin_token} --lab-controls --quiet";
}

}  // namespace

TEST_CASE("the --url list: one URL, or several comma-separated, in their order") {
  auto one = parsed_or_fail("http://127.0.0.1:8080");
  REQUIRE(one.size() == 1);
  CHECK(one[0].authority() == "127.0.0.1:8080");

  auto three = parsed_or_fail("http://127.0.0.1:8001,http://127.0.0.1:8002/,localhost:8003");
  REQUIRE(three.size() == 3);
  CHECK(three[0].authority() == "127.0.0.1:8001");
  CHECK(three[1].authority() == "127.0.0.1:8002");
  CHECK(three[2].authority() == "localhost:8003");

  // The same instance named three times is three turns of one process (the end-to-end test does this).
  CHECK(parsed_or_fail("http://127.0.0.1:9,http://127.0.0.1:9,http://127.0.0.1:9").size() == 3);
}

TEST_CASE("the --url list: a URL the grader could not send to is a usage error that names it and the shape") {
  for (const char* bad : {"", "http://127.0.0.1:8001,", ",http://127.0.0.1:8001", "http://127.0.0.1:8001,,x:2",
                          "http://127.0.0.1", "http://127.0.0.1:0", "http://127.0.0.1:65536", "http://127.0.0.1:80x",
                          "https://127.0.0.1:8443", "http://127.0.0.1:8001/api", "http://user@127.0.0.1:8001",
                          "http://:8001", "http://127.0.0.1:8001, http://127.0.0.1:8002"}) {
    INFO("--url " << bad);
    std::string error = error_of(bad);
    CHECK(error.find("http://127.0.0.1:PORT") != std::string::npos);
  }
  CHECK(error_of("http://127.0.0.1:8001,ftp://x:1").find("'ftp://x:1'") != std::string::npos);
  CHECK(error_of("http://127.0.0.1:8001,").find("an empty URL") != std::string::npos);
}

TEST_CASE("several instances: each request goes to the next one, in order, round and round") {
  auto target = Target::attach(three_instances(), "adm", {});
  std::vector<int> ports;
  for (int i = 0; i < 7; ++i) ports.push_back(target->address().port);
  CHECK(ports == std::vector<int>{8001, 8002, 8003, 8001, 8002, 8003, 8001});
}

TEST_CASE("several instances: burst threads asking at once share the turns out evenly, none lost or doubled") {
  constexpr int kThreads = 4, kCallsEach = 300;
  auto target = Target::attach(three_instances(), "adm", {});
  std::vector<std::map<int, int>> seen(kThreads);  // per thread: port -> times handed out
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kCallsEach; ++i) ++seen[t][target->address().port];
      });
  }  // joins
  std::map<int, int> total;
  for (const auto& per_thread : seen)
    for (auto [port, n] : per_thread) total[port] += n;
  CHECK(total == std::map<int, int>{{8001, 400}, {8002, 400}, {8003, 400}});
}

TEST_CASE("several instances: describe() names every one, and one instance is its URL alone") {
  auto three = Target::attach(three_instances(), "adm", {});
  CHECK(three->describe().find("http://127.0.0.1:8001,http://127.0.0.1:8002,http://127.0.0.1:8003") == 0);
  CHECK(three->describe().find("3 instances") != std::string::npos);
  CHECK(Target::attach({{"127.0.0.1", 8080}}, "adm", {})->describe() == "http://127.0.0.1:8080");
  CHECK(three->database_path().empty());  // --url: the grader cannot know a file
}

TEST_CASE("{db_name} is a PostgreSQL name: lab_ and 16 hex digits of the {db} path, stable per path") {
  const std::string name = database_name_for("/tmp/grader-abc123/lab.db");
  CHECK(name == database_name_for("/tmp/grader-abc123/lab.db"));  // a restart: same path, same database
  CHECK(name != database_name_for("/tmp/grader-xyz789/lab.db"));  // a sibling or fresh server: another one
  CHECK(name.rfind("lab_", 0) == 0);
  CHECK(name.size() == 20);
  CHECK(name.size() <= 63);  // PostgreSQL's NAMEDATALEN - 1
  for (char c : name) {
    INFO(name);
    CHECK(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'));
  }
  // FNV-1a 64 of "" is its offset basis: the hash is the documented one, the same on every machine.
  CHECK(database_name_for("") == "lab_cbf29ce484222325");
}

TEST_CASE("{db_name} is filled everywhere it appears, beside {db}, and from the same path") {
  const std::string name = database_name_for("/tmp/x.db");
  CHECK(fill_placeholders("srv --port {port} --db postgresql:///{db_name}?host=/s --note {db_name} {db}", 8080,
                          "/tmp/x.db", "adm") ==
        "srv --port 8080 --db postgresql:///" + name + "?host=/s --note " + name + " /tmp/x.db");
}

TEST_CASE("a server with {db_name} and no {db} has no database file, and its name survives a restart") {
  lab::testing::TempDir dir;
  auto target = Target::launch(python_server(dir.file("{db_name}.sqlite")), {});
  CHECK(target->database_path().empty());  // soak_round.cc then says R7 was not checked
  auto named_database = [&] {
    const std::string command = target->describe(), folder = dir.file("");
    auto at = command.find(folder);
    return at == std::string::npos ? std::string() : command.substr(at + folder.size(), 20);
  };
  const std::string before = named_database();
  CHECK(before.rfind("lab_", 0) == 0);
  target->sigkill();
  target->restart_after_crash();
  CHECK(named_database() == before);
  target->stop();

  auto with_file = Target::launch(python_server("{db}"), {});
  CHECK_FALSE(with_file->database_path().empty());
  with_file->stop();
}
