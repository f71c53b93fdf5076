// audit_test.cc: the verdicts from a history and a ledger (grader/record/audit.cc), on made-up inputs.
#include "grader/record/audit.h"

#include <catch2/catch.hpp>

using namespace grader;

namespace {

struct Fixture {
  std::deque<Account> accounts{{1, 1000, "USD", "t"}, {2, 500, "USD", "t"}};
  std::deque<Intent> intents;
  std::vector<Event> history;
  std::vector<LedgerEntry> ledger;
  Balances balances{{1, 1000}, {2, 500}};

  Intent& intent(std::int64_t amount) {
    Intent i;
    i.id = "i" + std::to_string(intents.size() + 1);
    i.tag = "gtag" + i.id;
    i.path = "/transfers";
    i.from = 1;
    i.to = 2;
    i.amount = amount;
    i.currency = "USD";
    i.memo = "rent #" + i.tag;
    intents.push_back(i);
    return intents.back();
  }
  void moved(const Intent& i) {
    ledger.push_back(
        {static_cast<std::int64_t>(ledger.size()) + 1, "transfer", i.from, i.to, "", i.amount, "USD", i.memo});
    balances[i.from] -= i.amount;
    balances[i.to] += i.amount;
  }
  void told(const Intent& i, int status) {
    Event e;
    e.type = status / 100 == 2 ? EventType::Ok : EventType::Fail;
    e.intent = i.id;
    e.response = HttpResponse{status, {}, ""};
    history.push_back(e);
  }
  std::vector<std::string> names() {
    std::vector<std::string> out;
    for (const auto& f : audit(intents, accounts, history, ledger, balances)) out.emplace_back(name(f.anomaly));
    return out;
  }
};

}  // namespace

TEST_CASE("one transfer for one intent, acknowledged, is no anomaly") {
  Fixture f;
  auto& i = f.intent(100);
  f.moved(i);
  f.told(i, 201);
  CHECK(f.names().empty());
}

TEST_CASE("an intent that moved money twice is a double apply") {
  Fixture f;
  auto& i = f.intent(100);
  f.moved(i);
  f.moved(i);
  CHECK(f.names() == std::vector<std::string>{"double-apply"});
}

TEST_CASE("a success with no money in the ledger is a lost write") {
  Fixture f;
  f.told(f.intent(100), 200);
  CHECK(f.names() == std::vector<std::string>{"lost-write"});
}

TEST_CASE("a success seen before the money reached the ledger is an in-flight lie") {
  Fixture f;
  auto& i = f.intent(100);
  f.told(i, 200);
  Event seen;
  seen.type = EventType::Observe;
  seen.intent = i.id;
  seen.ledger_entries = 0;
  f.history.push_back(seen);
  f.moved(i);
  CHECK(f.names() == std::vector<std::string>{"in-flight-lie"});
}

TEST_CASE("an intent expected to move once that never moved, and was never told success, is not executed") {
  Fixture f;
  f.intent(100).expect_moves = 1;
  CHECK(f.names() == std::vector<std::string>{"not-executed"});
}

TEST_CASE("a balance that disagrees with the ledger is balance drift") {
  Fixture f;
  f.balances[1] = 900;  // money left, no entry says where
  CHECK(f.names() == std::vector<std::string>{"balance-drift", "balance-drift"});
}

TEST_CASE("an entry on the world's accounts that no intent asked for is unexplained") {
  Fixture f;
  f.ledger.push_back({1, "transfer", 1, 2, "", 10, "USD", "not ours"});
  f.balances[1] -= 10;
  f.balances[2] += 10;
  CHECK(f.names() == std::vector<std::string>{"unexplained-entry"});
}

TEST_CASE("an invalid request that moved money is reported as an entry nobody may ask for") {
  Fixture f;
  auto& i = f.intent(100);
  i.max_moves = 0;
  f.moved(i);
  CHECK(f.names() == std::vector<std::string>{"unexplained-entry"});
}

TEST_CASE("a success only the observer saw (a lost response) was not told to a client: no lost write") {
  Fixture f;
  auto& i = f.intent(100);
  Event ended;
  ended.type = EventType::Ended;
  ended.intent = i.id;
  ended.response = HttpResponse{201, {}, ""};
  f.history.push_back(ended);
  CHECK(f.names().empty());
}

TEST_CASE("not-executed states how often the money moved: once of two is not \"never\"") {
  Fixture f;
  auto& i = f.intent(100);
  i.max_moves = 2;
  i.expect_moves = 2;
  f.moved(i);
  f.told(i, 201);
  auto found = audit(f.intents, f.accounts, f.history, f.ledger, f.balances);
  REQUIRE(found.size() == 1);
  CHECK(found[0].anomaly == Anomaly::NotExecuted);
  CHECK_THAT(found[0].what, Catch::Contains("moved money 1 time of the 2 expected"));
  CHECK_THAT(std::string(info(Anomaly::NotExecuted).because), !Catch::Contains("never"));
}

TEST_CASE("not-executed says \"never moved\" only when nothing moved") {
  Fixture f;
  f.intent(100).expect_moves = 1;
  auto found = audit(f.intents, f.accounts, f.history, f.ledger, f.balances);
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0].what, Catch::Contains("never moved money (expected 1 time)"));
}
