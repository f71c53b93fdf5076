// model_contract_test.cc: the model's rules (grader/model/contract.h), each set up directly as a short
// history of requests and answers, and each shown allowed and refused; and the stage relaxation: the same
// history refused at stage 6 and allowed at stage 2; and the ladder's credit, the lowest stage that refuses.
#include "grader/model/contract.h"
#include "grader/model/ladder.h"
#include "grader/model/rules.h"

#include <string>

#include <catch2/catch.hpp>

using namespace grader::model;

namespace {

const std::string kTransfer = R"({"from_account":1,"to_account":2,"amount":1500,"currency":"USD"})";

Request post(const std::string& path, const std::string& body, const std::string& token, std::vector<Header> extra = {}) {
  Request r{.method = "POST", .path = path, .headers = {{"Content-Type", "application/json"}}, .body = body, .real_ms = 0};
  if (!token.empty()) r.headers.push_back({"Authorization", "Bearer " + token});
  for (Header& h : extra) r.headers.push_back(std::move(h));
  return r;
}
Request transfer(const std::string& key, const std::string& body = kTransfer, const std::string& token = "tok_a",
                 std::vector<Header> extra = {}) {
  extra.push_back({"Idempotency-Key", "\"" + key + "\""});
  return post("/transfers", body, token, std::move(extra));
}
Answer json(int status, std::string body, std::vector<Header> extra = {}) {
  Answer a{.answered = true, .status = status, .headers = {{"Content-Type", "application/json"}}, .body = std::move(body)};
  for (Header& h : extra) a.headers.push_back(std::move(h));
  return a;
}
Answer problem(int status, const std::string& type, std::vector<Header> extra = {}) {
  Answer a{.answered = true, .status = status, .headers = {{"Content-Type", "application/problem+json"}},
           .body = R"({"type":"/problems/)" + type + R"(","title":"t","status":)" + std::to_string(status) + R"(,"detail":"d"})"};
  for (Header& h : extra) a.headers.push_back(std::move(h));
  return a;
}
Answer created(int id, std::int64_t balance_after, std::int64_t created_at = 1000, std::int64_t amount = 1500) {
  return json(201, R"({"amount":)" + std::to_string(amount) + R"(,"created_at":)" + std::to_string(created_at) +
                       R"(,"currency":"USD","from_account":1,"from_balance_after":)" + std::to_string(balance_after) +
                       R"(,"id":)" + std::to_string(id) + R"(,"kind":"transfer","memo":"","to_account":2})");
}
Answer already_processed() { return json(200, R"({"status":"already processed"})"); }
Answer replayed(Answer a) {
  a.headers.push_back({"Idempotent-Replayed", "true"});
  return a;
}

// Alice (client 1, tok_a) holds accounts 1 (10000 USD) and 2 (0 USD); Bob (client 2, tok_b) holds 3.
// On a Model, or on a Ladder (ladder.h), which judges alike and says which lesson a refusal shows missing.
template <class Judge = Model>
Judge bank(int stage, Settings s = {}) {
  s.admin_token = "adm";
  Judge m(stage, s);
  REQUIRE(m.judge(post("/admin/clients", R"({"name":"alice"})", "adm"), json(201, R"({"id":1,"name":"alice","token":"tok_a"})")).allowed);
  REQUIRE(m.judge(post("/admin/clients", R"({"name":"bob"})", "adm"), json(201, R"({"id":2,"name":"bob","token":"tok_b"})")).allowed);
  REQUIRE(m.judge(post("/admin/accounts", R"({"client_id":1,"balance":10000,"currency":"USD"})", "adm"),
                  json(201, R"({"id":1,"client_id":1,"balance":10000,"currency":"USD"})")).allowed);
  REQUIRE(m.judge(post("/admin/accounts", R"({"client_id":1,"balance":0,"currency":"USD"})", "adm"),
                  json(201, R"({"id":2,"client_id":1,"balance":0,"currency":"USD"})")).allowed);
  REQUIRE(m.judge(post("/admin/accounts", R"({"client_id":2,"balance":5000,"currency":"USD"})", "adm"),
                  json(201, R"({"id":3,"client_id":2,"balance":5000,"currency":"USD"})")).allowed);
  return m;
}

Request advance(std::int64_t ms) { return post("/admin/clock", R"({"advance_ms":)" + std::to_string(ms) + "}", "adm"); }

}  // namespace

TEST_CASE("M1: no token is 401 with WWW-Authenticate, and moves nothing") {
  Model m = bank(6);
  Model copy = m;
  CHECK(m.judge(transfer("k", kTransfer, ""), problem(401, "unauthorized", {{"WWW-Authenticate", "Bearer"}})).allowed);
  Judgement j = copy.judge(transfer("k", kTransfer, ""), created(1, 8500));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M1");
  CHECK(j.chapter.find("Authentication") != std::string::npos);
}

TEST_CASE("M2: from stage 2 a missing key is 400 idempotency-key-missing, stage 1 may run it") {
  Request no_key = post("/transfers", kTransfer, "tok_a");
  Model two = bank(2);
  Judgement j = two.judge(no_key, created(1, 8500));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M2");
  CHECK(bank(2).judge(no_key, problem(400, "idempotency-key-missing")).allowed);
  CHECK(bank(1).judge(no_key, created(1, 8500)).allowed);
  CHECK(bank(1).judge(no_key, problem(400, "idempotency-key-missing")).allowed);  // a later stage's server
}

TEST_CASE("M3: a body with another media type is 415 and does not burn its key") {
  Model m = bank(6);
  Request wrong = transfer("k");
  wrong.headers[0].value = "text/plain";
  CHECK(m.judge(wrong, problem(415, "unsupported-media-type")).allowed);
  CHECK(m.judge(transfer("k"), created(1, 8500)).allowed);  // the corrected request runs under the same key
  Model n = bank(6);
  Judgement j = n.judge(wrong, created(1, 8500));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M3");
}

TEST_CASE("M4 and M5: an overdraft is 402, a transfer is 201 with the balance right after it") {
  const std::string big = R"({"from_account":1,"to_account":2,"amount":900000,"currency":"USD"})";
  CHECK(bank(6).judge(transfer("big", big), problem(402, "insufficient-funds")).allowed);
  Model m = bank(6);
  Judgement j = m.judge(transfer("big", big), created(1, 0, 1000, 900000));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M4");
  Model n = bank(6);
  Judgement wrong_balance = n.judge(transfer("k"), created(1, 10000));
  CHECK_FALSE(wrong_balance.allowed);
  CHECK(wrong_balance.rule == "M5");
  CHECK(wrong_balance.observed.find("from_balance_after") != std::string::npos);
}

TEST_CASE("M8: at stage 2 a repeat is 'already processed', whatever its body, and moves nothing") {
  Model m = bank(2);
  REQUIRE(m.judge(transfer("rent"), created(1, 8500)).allowed);
  Model copy = m;
  CHECK(m.judge(transfer("rent"), already_processed()).allowed);
  Judgement j = copy.judge(transfer("rent"), json(200, R"({"status":"done"})"));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M8");
}

// A repeat answered 201 with a new entry moved the money twice: the refusal names M7, at every stage that
// has keys, whatever the expected answer was (stage 1's server explored at stage 2: grader explore's test).
TEST_CASE("M7: a repeat answered 201 with a new ledger entry is named as money moved twice") {
  for (int stage : {2, 4, 5}) {
    Model m = bank(stage);
    REQUIRE(m.judge(transfer("rent"), created(1, 8500)).allowed);
    Model same_entry = m;
    Judgement j = m.judge(transfer("rent"), created(2, 7000));
    CHECK_FALSE(j.allowed);
    CHECK(j.rule == "M7");
    CHECK_FALSE(j.observed.empty());
    if (stage == 4) CHECK(same_entry.judge(transfer("rent"), created(1, 8500, 1020)).allowed);  // rebuilt: the same entry
  }
  // Overlapping: the repeat ran first and the slow first request ran too. Some world had the first run
  // and the repeat rebuilt (M5 would name the wrong balance), but the answer is a second entry: M7.
  Model overlap = bank(2);
  overlap.send(1, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "800"}}));
  REQUIRE(overlap.judge(transfer("slow"), created(1, 8500)).allowed);
  Judgement twice = overlap.answer(1, created(2, 7000));
  CHECK_FALSE(twice.allowed);
  CHECK(twice.rule == "M7");
  Model overdraft = bank(4);  // a refused first request, then a 201 to its repeat
  const std::string big = R"({"from_account":1,"to_account":2,"amount":900000,"currency":"USD"})";
  REQUIRE(overdraft.judge(transfer("big", big), problem(402, "insufficient-funds")).allowed);
  Judgement j = overdraft.judge(transfer("big", big), created(1, 0, 1000, 900000));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M7");
}

TEST_CASE("M9: a key reused with another body is 422 at stage 6, 'already processed' allowed at stage 2") {
  const std::string other = R"({"from_account":1,"to_account":2,"amount":3000,"currency":"USD"})";
  Model six = bank(6);
  REQUIRE(six.judge(transfer("counter"), created(1, 8500)).allowed);
  Model six_copy = six;
  CHECK(six.judge(transfer("counter", other), problem(422, "idempotency-key-reused")).allowed);
  Judgement j = six_copy.judge(transfer("counter", other), already_processed());
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M9");

  // Stage relaxation: the same history at stage 2 (the fingerprint is stage 3's lesson).
  Model two = bank(2);
  REQUIRE(two.judge(transfer("counter"), created(1, 8500)).allowed);
  Model two_copy = two;
  CHECK(two.judge(transfer("counter", other), already_processed()).allowed);
  CHECK(two_copy.judge(transfer("counter", other), problem(422, "idempotency-key-reused")).allowed);
}

TEST_CASE("M9: the same body in another spelling is the same request") {
  Model m = bank(3);
  REQUIRE(m.judge(transfer("k"), created(1, 8500)).allowed);
  const std::string respelled = R"({ "currency": "\u0055SD", "amount": 1.5e3, "to_account": 2.0, "from_account": 1 })";
  Model copy = m;
  CHECK(m.judge(transfer("k", respelled), already_processed()).allowed);
  Judgement j = copy.judge(transfer("k", respelled), problem(422, "idempotency-key-reused"));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M9");  // named for the spelling, not for the 'already processed' that was due
  Model four = bank(4);   // and where the first outcome was due again
  REQUIRE(four.judge(transfer("k"), created(1, 8500)).allowed);
  Judgement k = four.judge(transfer("k", respelled), problem(422, "idempotency-key-reused"));
  CHECK_FALSE(k.allowed);
  CHECK(k.rule == "M9");
}

TEST_CASE("M10, M11: 409 while the lease runs, after it a retry takes over and the old holder is fenced out") {
  Settings s;
  s.lease_seconds = 30;
  Model m = bank(4, s);
  m.send(1, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "4000"}}));
  Model early = m;
  CHECK(m.judge(transfer("slow"), problem(409, "request-in-progress", {{"Retry-After", "1"}})).allowed);
  Judgement no_retry_after = early.judge(transfer("slow"), problem(409, "request-in-progress"));
  CHECK_FALSE(no_retry_after.allowed);
  CHECK(no_retry_after.rule == "M23");  // the 409 in progress came: the header is the contract's (no-retry-after)

  REQUIRE(m.judge(advance(31000), json(200, R"({"now_ms":1031000})")).allowed);
  REQUIRE(m.judge(transfer("slow"), created(1, 8500)).allowed);  // the take-over runs
  Model fenced = m;
  CHECK(m.answer(1, problem(409, "request-in-progress", {{"Retry-After", "1"}})).allowed);
  Judgement twice = fenced.answer(1, created(2, 7000));
  CHECK_FALSE(twice.allowed);
}

TEST_CASE("M11: after a crash and the lease, the retry must take the key over, a 409 is refused") {
  Model m = bank(4);
  REQUIRE(m.judge(transfer("k", kTransfer, "tok_a", {{"Lab-Crash", "before-money"}}), Answer::none()).allowed);
  m.restart();
  Model early = m;  // within the lease the crashed claim still holds the key
  CHECK(early.judge(transfer("k"), problem(409, "request-in-progress", {{"Retry-After", "1"}})).allowed);
  REQUIRE(m.judge(advance(35000), json(200, R"({"now_ms":1035000})")).allowed);
  Model later = m;
  CHECK(m.judge(transfer("k"), created(1, 8500)).allowed);
  Judgement j = later.judge(transfer("k"), problem(409, "request-in-progress", {{"Retry-After", "1"}}));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M11");  // named for the takeover, not for the 201 that was due
}

TEST_CASE("M12 and M15: stage 4 may rebuild a completed outcome, stage 5 replays the first bytes") {
  Model four = bank(4);
  REQUIRE(four.judge(transfer("rent"), created(5, 8500, 1000)).allowed);
  REQUIRE(four.judge(transfer("groceries", R"({"from_account":1,"to_account":2,"amount":1000,"currency":"USD"})"),
                     created(6, 7500, 1010, 1000)).allowed);
  CHECK(four.judge(transfer("rent"), created(5, 7500, 1020)).allowed);  // same entry, balance of now

  Model five = bank(5);
  REQUIRE(five.judge(transfer("rent"), created(5, 8500, 1000)).allowed);
  REQUIRE(five.judge(transfer("groceries", R"({"from_account":1,"to_account":2,"amount":1000,"currency":"USD"})"),
                     created(6, 7500, 1010, 1000)).allowed);
  Model five_b = five, five_c = five;
  CHECK(five.judge(transfer("rent"), replayed(created(5, 8500, 1000))).allowed);
  Judgement rebuilt = five_b.judge(transfer("rent"), replayed(created(5, 7500, 1020)));
  CHECK_FALSE(rebuilt.allowed);
  CHECK(rebuilt.rule == "M15");
  Judgement no_header = five_c.judge(transfer("rent"), created(5, 8500, 1000));
  CHECK_FALSE(no_header.allowed);
  CHECK(no_header.rule == "M15");
}

TEST_CASE("M15: a first answer never carries Idempotent-Replayed from stage 5") {
  Model m = bank(5);
  Judgement j = m.judge(transfer("k"), replayed(created(1, 8500)));
  CHECK_FALSE(j.allowed);
  CHECK(j.observed.find("Idempotent-Replayed") != std::string::npos);
  CHECK(j.rule == "M15");  // named for the header, not for the 201 that was due
}

TEST_CASE("M16: at stage 6 another client's key is its own request, stage 5 may replay the stranger's answer") {
  Model six = bank(6), five = bank(5);
  REQUIRE(six.judge(transfer("invoice"), created(1, 8500)).allowed);
  REQUIRE(five.judge(transfer("invoice"), created(1, 8500)).allowed);
  Model six_copy = six;
  CHECK(six.judge(transfer("invoice", kTransfer, "tok_b"), problem(404, "not-found")).allowed);  // Bob does not own account 1
  Judgement j = six_copy.judge(transfer("invoice", kTransfer, "tok_b"), replayed(created(1, 8500)));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M16");  // named for the scope, not for the bank's 404 that was due
  CHECK(five.judge(transfer("invoice", kTransfer, "tok_b"), replayed(created(1, 8500))).allowed);
}

TEST_CASE("M17: after --key-ttl the same request runs again, before it, it is replayed") {
  Settings s;
  s.key_ttl_seconds = 60;
  Model m = bank(6, s);
  REQUIRE(m.judge(transfer("rent"), created(1, 8500)).allowed);
  Model before = m;
  CHECK(before.judge(transfer("rent"), replayed(created(1, 8500))).allowed);
  REQUIRE(m.judge(advance(61000), json(200, R"({"now_ms":61000})")).allowed);
  Model after = m;
  CHECK(m.judge(transfer("rent"), created(2, 7000, 62000)).allowed);
  Judgement j = after.judge(transfer("rent"), replayed(created(1, 8500)));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M17");  // named for the retention, not for the 201 that was due
}

TEST_CASE("M14 and M22: busy is 503 with Retry-After, from stage 4 the retry runs, at stage 3 it is 'already processed'") {
  Request busy = transfer("k", kTransfer, "tok_a", {{"Lab-Fail", "busy"}});
  Answer unavailable = problem(503, "service-unavailable", {{"Retry-After", "1"}});
  Model four = bank(4);
  REQUIRE(four.judge(busy, unavailable).allowed);
  Model four_copy = four;
  CHECK(four.judge(transfer("k"), created(1, 8500)).allowed);
  Judgement repeat = four_copy.judge(transfer("k"), already_processed());
  CHECK_FALSE(repeat.allowed);
  CHECK(repeat.rule == "M22");  // the retry was due to run: the 503 releases the claim, stage 4's lesson
  Model three = bank(3);
  REQUIRE(three.judge(busy, unavailable).allowed);
  CHECK(three.judge(transfer("k"), already_processed()).allowed);
}

TEST_CASE("M13, M18: a crash before the money keeps the claim past the restart, its lease then runs out") {
  Model m = bank(4);
  REQUIRE(m.judge(transfer("gift", kTransfer, "tok_a", {{"Lab-Crash", "before-money"}}), Answer::none()).allowed);
  CHECK_FALSE(Model(m).judge(transfer("gift"), created(1, 8500)).allowed);  // the server is down
  m.restart();
  Model early = m;
  CHECK(m.judge(transfer("gift"), problem(409, "request-in-progress", {{"Retry-After", "1"}})).allowed);
  Judgement j = early.judge(transfer("gift"), created(1, 8500));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M10");
  REQUIRE(m.judge(advance(31000), json(200, R"({"now_ms":31000})")).allowed);
  CHECK(m.judge(transfer("gift"), created(1, 8500)).allowed);
}

TEST_CASE("M18: after-commit-2 may leave the claim alone or the money with its completion") {
  Model m = bank(4);
  REQUIRE(m.judge(transfer("g", kTransfer, "tok_a", {{"Lab-Crash", "after-commit-2"}}), Answer::none()).allowed);
  m.restart();
  Model claim_only = m;
  CHECK(m.judge(transfer("g"), created(1, 8500)).allowed);  // completed with the money: the outcome again
  CHECK(claim_only.judge(transfer("g"), problem(409, "request-in-progress", {{"Retry-After", "1"}})).allowed);
}

// A key completed before its money moved (the wrong turn wrong_completed_first): a repeat while the first
// request runs finds the key completed and gets a 201 that names no ledger entry (id 0). No money moved
// twice, so not M7; the lesson lacking is stage 4's (the money and the completion go together), whatever the
// stage the model holds it to, so M13, never stage 2's M8 nor the contract's M4.
TEST_CASE("M13: a repeat answered 201 with no ledger entry found a completion without its outcome") {
  const Answer stub = json(201, R"({"amount":0,"created_at":0,"currency":"","from_account":0,"from_balance_after":0,)"
                                R"("id":0,"kind":"transfer","memo":"","to_account":0})");
  for (int stage : {2, 3, 4, 6}) {
    Model m = bank(stage);
    m.send(1, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "800"}}));
    Judgement j = m.judge(transfer("slow"), stub);
    CHECK_FALSE(j.allowed);
    CHECK(j.rule == "M13");
  }
  Model done = bank(2);  // after completion too: "already processed" was due, no move is reported
  REQUIRE(done.judge(transfer("rent"), created(1, 8500)).allowed);
  Judgement j = done.judge(transfer("rent"), stub);
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M13");
}

// stageN.conformance credits a refusal to the stage of its rule (grader/checks/checks_conformance.cc).
TEST_CASE("rule_stage: a rule belongs to the stage whose chapter states it, the reference chapters' to the contract") {
  CHECK(rule_stage("M7") == 2);
  CHECK(rule_stage("M8") == 2);
  CHECK(rule_stage("M9") == 3);
  for (const char* id : {"M10", "M11", "M12", "M13"}) CHECK(rule_stage(id) == 4);
  CHECK(rule_stage("M15") == 5);
  CHECK(rule_stage("M16") == 6);
  CHECK(rule_stage("M17") == 6);
  CHECK(rule_stage("M22") == 4);
  for (const char* id : {"M1", "M2", "M3", "M4", "M5", "M6", "M14", "M18", "M19", "M20", "M21"}) CHECK(rule_stage(id) == 0);
}

// A stage 2 server held to stage 6: its repeat while the first request runs is "already processed". The world
// in which the repeat arrived first and ran names M5, the contract's; the one in which it found the key
// claimed names M10, stage 4's lesson, the one the server lacks: a lesson's rule comes before the contract's.
TEST_CASE("M10: 'already processed' while the first request runs names the lesson, not the contract's M5") {
  Model m = bank(6);
  m.send(1, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "800"}}));
  Judgement j = m.judge(transfer("slow"), already_processed());
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M10");
}

// The retry after a 503 runs (its key was released, or never kept): a 201 that names no entry is a key the
// server completed before the money failed, M13 again, not the M5 of the run that was due.
TEST_CASE("M13: the retry after a busy 503 answered 201 with no ledger entry") {
  const Answer stub = json(201, R"({"amount":0,"created_at":0,"currency":"","from_account":0,"from_balance_after":0,)"
                                R"("id":0,"kind":"transfer","memo":"","to_account":0})");
  for (int stage : {2, 4}) {
    Model m = bank(stage);
    REQUIRE(m.judge(transfer("b", kTransfer, "tok_a", {{"Lab-Fail", "busy"}}),
                    problem(503, "service-unavailable", {{"Retry-After", "1"}})).allowed);
    Judgement j = m.judge(transfer("b"), stub);
    CHECK_FALSE(j.allowed);
    CHECK(j.rule == "M13");
  }
}

// Money that moved twice shows only later, in a balance (M5's from_balance_after, M20's GET /accounts), rules
// of the contract; the lesson lacking is where it went astray: after a crash of a keyed request, M13 (stage 4);
// with a key sent again and no crash, M7 (stage 2). Here a crash after the money, and a retry that moved it
// again: its answer names an entry the model cannot tell from the crashed one's (whose answer was lost), the
// next transfer's from_balance_after tells.
TEST_CASE("M13 and M7: money moved twice, seen later in a balance, names where it went astray") {
  Model crashed = bank(3);
  REQUIRE(crashed.judge(transfer("c", kTransfer, "tok_a", {{"Lab-Crash", "after-money"}}), Answer::none()).allowed);
  crashed.restart();
  REQUIRE(crashed.judge(transfer("c"), created(2, 7000)).allowed);  // the crashed one's entry, as far as it knows
  Judgement j = crashed.judge(transfer("next"), created(3, 5500));  // 10000 - 3 x 1500; the model holds 7000
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M13");
  Model plain = bank(3);  // no key sent twice, no crash: a wrong balance is the contract's
  Judgement k = plain.judge(transfer("k"), created(1, 7000));
  CHECK_FALSE(k.allowed);
  CHECK(k.rule == "M5");
}

// A stored 402 replayed with Idempotent-Replayed: true but another Content-Type (the mutant replay-as-json):
// the answer says it is a stored replay, so the replay's rule judges it (M15, stage 5's), not the rebuilt
// outcome's (M12, stage 4's) that expected its status too.
TEST_CASE("M15: a replay marked Idempotent-Replayed with another Content-Type is the replay's, at stage 2 too") {
  const std::string big = R"({"from_account":2,"to_account":1,"amount":2700,"currency":"USD"})";
  for (int stage : {2, 5}) {
    Model m = bank(stage);
    REQUIRE(m.judge(transfer("p", big), problem(402, "insufficient-funds")).allowed);
    Answer as_json = replayed(problem(402, "insufficient-funds"));
    as_json.headers[0].value = "application/json";
    Judgement j = m.judge(transfer("p", big), as_json);
    CHECK_FALSE(j.allowed);
    CHECK(j.rule == "M15");
  }
}

// Retry-After in another form (the mutant retry-after-fraction, "0.5") is the contract's, M23, whichever
// lesson asked for the 409; a missing one stays M10 (the M10 test above).
TEST_CASE("M23: a 409 in progress whose Retry-After is not a whole number of seconds") {
  for (int stage : {2, 4}) {
    Model m = bank(stage);
    m.send(1, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "4000"}}));
    Judgement j = m.judge(transfer("slow"), problem(409, "request-in-progress", {{"Retry-After", "0.5"}}));
    CHECK_FALSE(j.allowed);
    CHECK(j.rule == "M23");
  }
}

// ---- The ladder (ladder.h): a refusal credits the lowest stage whose model refuses the history ----

TEST_CASE("ladder: keys lost at a restart are stage 2's lesson, whatever rule the stage-6 model named") {
  auto m = bank<Ladder>(6);
  REQUIRE(m.judge(transfer("gift"), created(1, 8500)).allowed);
  REQUIRE(m.judge(transfer("other", kTransfer, "tok_a", {{"Lab-Crash", "before-money"}}), Answer::none()).allowed);
  m.restart();
  auto lost = m;
  CHECK(m.judge(transfer("gift"), replayed(created(1, 8500))).allowed);
  // A server whose key table did not outlive the restart runs it again, on the money that moved.
  Judgement j = lost.judge(transfer("gift"), created(2, 7000));
  CHECK_FALSE(j.allowed);
  CHECK(j.lesson_stage == 2);
  CHECK(j.rule == "M24");  // the stage-2 model's rule for it: the key table outlives a restart
  CHECK(j.by_ladder);
  CHECK(lacking_words(j).starts_with("stage 2's lesson (docs/learn/stage-2-unique-key.md): a server with the lessons"));
}

TEST_CASE("ladder: a completed key forgotten once its lease passed is stage 6's retention, not stage 2's keys") {
  auto m = bank<Ladder>(6);
  REQUIRE(m.judge(transfer("rent"), created(1, 8500)).allowed);
  REQUIRE(m.judge(advance(35000), json(200, R"({"now_ms":35000})")).allowed);
  auto kept = m;
  CHECK(kept.judge(transfer("rent"), replayed(created(1, 8500))).allowed);
  Judgement j = m.judge(transfer("rent"), created(2, 7000, 36000));  // --key-ttl is a day: run again, 35 s on
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M7");  // the model of stage 6 says what a right server does: the money moves once
  CHECK(j.lesson_stage == 6);
  // Without the clock moved past the lease no lesson half done explains it: a repeat moved money, stage 2's.
  auto at_once = bank<Ladder>(6);
  REQUIRE(at_once.judge(transfer("rent"), created(1, 8500)).allowed);
  Judgement now = at_once.judge(transfer("rent"), created(2, 7000));
  CHECK_FALSE(now.allowed);
  CHECK(now.lesson_stage == 2);
}

// Stages 2 and 3 commit a request's key and its money in one transaction; stage 4 commits the claim alone
// first. Wrong turn 4b commits the money, then its key: after a crash at its first commit the money has moved,
// which a server of stage 3 may show too, so the lesson lacking is stage 4's (matrix seed 757731695 named
// the contract's M5 for it: no model allowed money moved at the first commit of a server with keys).
TEST_CASE("ladder: money moved by a crash after the first commit is allowed before stage 4, and stage 4's lesson after") {
  const std::string overdraft = R"({"from_account":1,"to_account":2,"amount":9000,"currency":"USD"})";
  const Request crash = transfer("k", kTransfer, "tok_a", {{"Lab-Crash", "after-commit-1"}});
  auto at3 = bank<Ladder>(3);
  REQUIRE(at3.judge(crash, Answer::none()).allowed);
  at3.restart();
  CHECK(at3.judge(transfer("big", overdraft), problem(402, "insufficient-funds")).allowed);  // 8500 left
  auto at4 = bank<Ladder>(4);
  REQUIRE(at4.judge(crash, Answer::none()).allowed);
  at4.restart();
  Judgement j = at4.judge(transfer("big", overdraft), problem(402, "insufficient-funds"));
  CHECK_FALSE(j.allowed);  // stage 4's first commit is the claim: 10000 were left, 9000 moves
  CHECK(j.rule == "M13");  // the bank's 402 shows the money moved at the crash, apart from its completion
  CHECK(j.lesson_stage == 4);
  CHECK(j.by_ladder);
}

TEST_CASE("ladder: a key reused with another body answered 409 in progress is stage 3's M9, not stage 4's") {
  auto m = bank<Ladder>(6);
  REQUIRE(m.judge(transfer("k"), created(1, 8500)).allowed);
  const std::string other = R"({"from_account":1,"to_account":2,"amount":900,"currency":"USD"})";
  Judgement j = m.judge(transfer("k", other), problem(409, "request-in-progress", {{"Retry-After", "1"}}));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M9");  // the mutant mismatch-as-conflict: the 422 answered as 409
  CHECK(j.lesson_stage == 3);
}

TEST_CASE("ladder: stage 2's answer to a key reused with another body, held to stage 6, credits stage 3") {
  auto m = bank<Ladder>(6);
  REQUIRE(m.judge(transfer("k"), created(1, 8500)).allowed);
  const std::string other = R"({"from_account":1,"to_account":2,"amount":900,"currency":"USD"})";
  Judgement j = m.judge(transfer("k", other), already_processed());
  CHECK_FALSE(j.allowed);
  CHECK(j.lesson_stage == 3);  // the models of stages 1 and 2 allow it; stage 3's does not
  CHECK(j.rule == "M9");
  CHECK(j.by_ladder);
}

TEST_CASE("ladder: when no choice of lessons explains an answer, the rule's own stage is credited") {
  // 422 to the same JSON written otherwise: a fingerprint of the raw bytes, a lesson half learnt. No model
  // below allows it either (none keeps a world that fingerprints bytes), so the rule names the stage.
  auto m = bank<Ladder>(6);
  REQUIRE(m.judge(transfer("k"), created(1, 8500)).allowed);
  const std::string respelled = R"({ "currency":"USD", "amount":15e2, "to_account":2, "from_account":1 })";
  Judgement j = m.judge(transfer("k", respelled), problem(422, "idempotency-key-reused"));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M9");
  CHECK(j.lesson_stage == 3);
  CHECK_FALSE(j.by_ladder);
  CHECK(lacking_words(j).find("no choice of lessons") != std::string::npos);
  // A first transfer answered with the wrong balance breaks the contract at every stage.
  auto c = bank<Ladder>(6);
  Judgement wrong = c.judge(transfer("x"), created(1, 9999));
  CHECK_FALSE(wrong.allowed);
  CHECK(wrong.lesson_stage == 0);
}
TEST_CASE("ladder: a refusal whose key was freed, so another body ran, is stage 5's stored outcomes, not stage 3's") {
  // Bob's account 3 is not Alice's: 404. A server that keeps only successes frees the key (store-only-201),
  // so the same key with another body runs and is refused again. A stage-4 world without the fingerprint
  // rebuilds the first outcome, the same 404, so the models up to stage 4 allow it; stage 5's keeps refusals.
  const std::string b1 = R"({"from_account":3,"to_account":2,"amount":100,"currency":"USD"})";
  const std::string b2 = R"({"from_account":3,"to_account":2,"amount":3900,"currency":"USD"})";
  auto m = bank<Ladder>(6);
  REQUIRE(m.judge(transfer("k1", b1), problem(404, "not-found")).allowed);
  Judgement j = m.judge(transfer("k1", b2), problem(404, "not-found"));
  CHECK_FALSE(j.allowed);
  CHECK(j.lesson_stage == 5);
  CHECK(j.by_ladder);
}

// The mutant in-progress-says-done: a repeat while the first request runs is told 200 "processing". No choice
// of lessons answers so; the closest status is stage 2's "already processed" (M8), but the server told a
// repeat in flight that it was done, where stage 4 says 409 (M10): that lesson is the one it lacks.
TEST_CASE("ladder: a repeat in flight told 200 'processing' names stage 4's M10, not stage 2's M8") {
  auto m = bank<Ladder>(2);
  m.send(7, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "800"}}));
  Judgement j = m.judge(transfer("slow"), json(200, R"({"status":"processing"})"));
  CHECK_FALSE(j.allowed);
  CHECK(j.rule == "M10");
  CHECK(j.lesson_stage == 4);
  CHECK_FALSE(j.by_ladder);
}

// Answers no choice of lessons explains, named for the lesson the server lacks (the mutants of each).
TEST_CASE("ladder: a 409 in progress no world allows names stage 4's lesson: a key never completed, a holder fenced early") {
  // completed-state-typo: the key of a finished request stays in progress (its completion never written).
  auto typo = bank<Ladder>(2);
  const std::string overdraft = R"({"from_account":2,"to_account":1,"amount":2700,"currency":"USD"})";
  REQUIRE(typo.judge(transfer("k", overdraft), problem(402, "insufficient-funds")).allowed);
  Judgement stuck = typo.judge(transfer("k", overdraft), problem(409, "request-in-progress", {{"Retry-After", "1"}}));
  CHECK_FALSE(stuck.allowed);
  CHECK(stuck.rule == "M13");
  CHECK(stuck.lesson_stage == 4);
  // lease-end-as-now: the repeat takes the key over at once and runs; the first, still within its lease, is
  // fenced out with 409.
  auto early = bank<Ladder>(2);
  early.send(7, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "800"}}));
  REQUIRE(early.judge(transfer("slow"), created(1, 8500)).allowed);
  Judgement fenced = early.answer(7, problem(409, "request-in-progress", {{"Retry-After", "1"}}));
  CHECK_FALSE(fenced.allowed);
  CHECK(fenced.rule == "M11");
  CHECK(fenced.lesson_stage == 4);
}

TEST_CASE("ladder: a holder fenced out that still moves money names M11, not M7; the same body refused in flight M9") {
  // fence-not-checked: the lease passed, the repeat took the key over and ran; the old holder ran as well.
  auto m = bank<Ladder>(5);
  m.send(7, transfer("slow", kTransfer, "tok_a", {{"Lab-Delay-Ms", "800"}}));
  REQUIRE(m.judge(advance(35000), json(200, R"({"now_ms":35000})")).allowed);
  REQUIRE(m.judge(transfer("slow"), created(1, 8500)).allowed);
  Judgement twice = m.answer(7, created(2, 7000));
  CHECK_FALSE(twice.allowed);
  CHECK(twice.rule == "M11");
  CHECK(twice.lesson_stage == 4);
  // fingerprint-compared-raw: the very same request, sent while the first runs, refused as another body.
  auto raw = bank<Ladder>(6);
  raw.send(7, transfer("same", kTransfer, "tok_a", {{"Lab-Delay-Ms", "800"}}));
  Judgement reused = raw.judge(transfer("same"), problem(422, "idempotency-key-reused"));
  CHECK_FALSE(reused.allowed);
  CHECK(reused.rule == "M9");
  CHECK(reused.lesson_stage == 3);
}

