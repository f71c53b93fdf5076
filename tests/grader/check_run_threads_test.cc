// check_run_threads_test.cc: what CheckRun promises to threads (check_run.h, "Thread safety"). `grader soak`'s
// client threads each let the lease run out when their key keeps answering 409 (soak_round.cc
// send_until_answered), so advance_past_lease is called from several threads at once. Issue #57: its flag
// was a plain bool, a data race ThreadSanitizer reported in "grader soak: 20 rounds on stage 6". Under
// `make tsan` this test fails on such a race; in the normal build it checks that every call reached the server.
#include <httplib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "grader/checks/check_run.h"

using namespace grader;

namespace {

// The two admin calls a CheckRun makes here: the ledger (empty) when it starts, and the lab clock.
class FakeAdmin {
 public:
  FakeAdmin() {
    server_.Get("/admin/ledger", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"entries": [], "next": null})", "application/json");
    });
    server_.Post("/admin/clock", [this](const httplib::Request&, httplib::Response& res) {
      const int n = ++clock_calls_;
      res.set_content(R"({"now_ms": )" + std::to_string(n) + "}", "application/json");
    });
    // Bound and listening from here: a connection made before the thread accepts waits in the backlog.
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeAdmin() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  int clock_calls() const { return clock_calls_; }

 private:
  httplib::Server server_;
  std::atomic<int> clock_calls_{0};  // the handlers run on the server's worker threads
  int port_ = 0;
  std::thread thread_;
};

}  // namespace

TEST_CASE("CheckRun: advance_past_lease from several threads at once, as grader soak's clients call it", "[check_run]") {
  FakeAdmin admin;
  auto target = Target::attach({{"127.0.0.1", admin.port()}}, "adm", {});
  History history;
  Check check;
  check.name = "test.lease-from-threads";
  CheckRun run(check, *target, history, 1, "n0nce");

  constexpr int kThreads = 4, kCallsEach = 5;
  {
    std::vector<std::jthread> clients;
    for (int t = 0; t < kThreads; ++t)
      clients.emplace_back([&run] {
        for (int i = 0; i < kCallsEach; ++i) run.advance_past_lease();
      });
  }
  CHECK(admin.clock_calls() == kThreads * kCallsEach);
}
