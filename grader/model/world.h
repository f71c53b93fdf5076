// world.h: one state the server may be in, as far as the model can tell: its bank, its key table, the
// requests still in flight, whether it is up, the lab clock's offset, and the lessons it does. The Model
// (contract.h) keeps a set of these; each is plain data, compared by key() to drop duplicates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grader/model/bank.h"
#include "grader/model/keys.h"
#include "grader/model/lessons.h"
#include "grader/model/message.h"
#include "grader/model/settings.h"

namespace grader::model {

// What an answer may be, as one world sees it: its kind, and what the kind needs to check it.
struct Expect {
  enum class Kind {
    NoAnswer,          // the process died (or was down) before answering
    Problem,           // status + one of problems
    Created,           // 201: the ledger entry `entry`
    AlreadyProcessed,  // 200 {"status":"already processed"} (stages 2-3)
    Rebuilt,           // stage 4: the completed row's outcome, rendered again
    Replay,            // stage 5: the completed row's first answer, byte for byte
    AccountBalance,    // 200 GET /accounts/{id}
    ClientCreated,     // 201 POST /admin/clients
    AccountCreated,    // 201 POST /admin/accounts
    ClockMoved,        // 200 POST /admin/clock
  };
  Kind kind = Kind::NoAnswer;
  const char* rule = "M19";
  int status = 0;
  std::vector<std::string> problems;  // Problem: the types allowed
  bool retry_after = false;           // Problem: the header is required (409, 503)
  bool www_authenticate = false;      // Problem: 401
  std::size_t entry = 0;              // Created, Rebuilt/Replay of a 201
  std::int64_t row = 0;               // Rebuilt, Replay: the row; Created/Problem: the row whose first answer it is (0: none)
  bool may_be_lost = false;           // the process died after the effects: no answer is allowed too
  std::int64_t account = 0;           // AccountBalance
  std::string new_account_currency;   // AccountCreated
  std::int64_t new_account_client = 0, new_account_balance = 0;
  std::int64_t advance_ms = 0;        // ClockMoved
  std::int64_t repeat_of = 0;         // a repeat (M8-M12, M15): the row its key collided with
};

struct Flight {
  int id = 0;
  Request request;
  std::int64_t offset_at_send = 0;
  enum class Phase { Pending, Holding, Done } phase = Phase::Pending;
  std::int64_t client = 0;
  MoneyRequest money;  // Holding: the valid request it runs
  std::int64_t row = 0;  // Holding: its claim (0: no key table)
  int fence = 0;
  // The rule a wrong answer to it breaks when it runs only because of a lesson beyond the bank's: "M11" (it
  // took over a claim whose lease ran out), "M17" (it claimed a key whose row had expired), "M16" (the key
  // string is taken in another scope); null: M5 and M4.
  const char* runs_because = nullptr;
  Expect expect;       // Done
};

struct World {
  Lessons lessons{};
  Bank bank;
  std::vector<KeyRow> keys;
  std::int64_t next_row = 1;
  std::vector<Flight> flights;
  bool alive = true;
  std::int64_t offset_ms = 0;  // what POST /admin/clock moved, in ms
  int restarts = 0;            // the process was started again this many times (Model::restart)

  KeyRow* row(std::int64_t id);
  Flight* flight(int id);
  std::string key() const;  // equal keys: equal worlds
};


// The two steps of a request: reaching the key table (arrive), and the money (finish). Each returns every
// world the step may lead to; the flight is Done in it, or Holding after arrive.
std::vector<World> arrive(const World& w, int flight, const Settings& settings, std::int64_t now_real_ms);
std::vector<World> finish(const World& w, int flight, const Settings& settings, std::int64_t now_real_ms);

// Does the answer agree with the expectation? Empty when it does; else what disagrees. An agreeing answer
// may teach the world what the contract left open (an id, a token, the first answer's bytes).
std::string match(const Expect& expect, const Answer& answer, World& world);
std::string describe(const Expect& expect, const World& world);
// Did the answer to a repeat report a new move of the money: a 201 naming a ledger entry (an id of 1 or more,
// openapi.yaml Id) where the first outcome was a refusal or "already processed" was due, or a 201 naming
// another ledger entry than the first one's? Such a refusal is rule M7's (a repeat moves no money), whatever
// rule the world's expectation named. A 201 that names no entry (a stub rebuilt from a key completed before
// its money moved: id 0) reports no move, and is judged by the world's own rule.
bool moves_again(const Expect& expect, const Answer& answer, const World& world);
// Did a request with a key (`keyed`) get a success that names no ledger entry (a 201 without an id of 1 or
// more), where a completed key's outcome, "already processed" or a run (its 201 or its refusal) was due? The server found the key
// completed before its outcome existed (a retry after a 503 too, whose key the server had completed before
// the money failed): rule M13's (the key's completion and the money go together), whatever rule the world's
// expectation named, at every stage: it is stage 4's lesson the server lacks, not the one the world expected.
bool completed_without_outcome(const Expect& expect, const Answer& answer, bool keyed);
// Was a repeat of the same canonical body refused as a reused key (422 idempotency-key-reused)? That is
// rule M9's second half (the same body in any spelling is the same request), whatever the world expected: a
// repeat after completion, or one while the first runs (a 409 due) whose body is the row's (flight `id`).
bool refuses_same_body(const Expect& expect, const Answer& answer, World& world, int id);
// Does a first answer carry Idempotent-Replayed where the server keeps first answers (stage 5 on)? Rule M15's
// second half, whatever rule the expected first answer named (but M11, M16 and M17, which say more).
bool first_answer_marked_replayed(const Expect& expect, const Answer& answer, const World& world);
// Was a repeat of a key claimed before the process last started again answered as a first request runs (a 201
// not marked a replay, or a refusal of the bank's)? Rule M24's (the key table outlives a restart, stage 2's),
// where the world expected the repeat's own answer; asked for by the ladder's model of stage 2 (ladder.h).
bool run_as_new_after_restart(const Expect& expect, const Answer& answer, World& world);

}  // namespace grader::model
