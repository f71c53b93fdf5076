// world.h: a running server with one client, alice, who owns two USD accounts: the usual start of a test,
// and the scenarios several stages' tests share (a slow first request, a crash, a second client).
//
//   World w("stage4_two_phase");
//   CHECK(w.send("k", w.body(100)).status == 201);        // alice moves 100 from w.from to w.to under key "k"
//   auto seen = w.repeat_while_first_runs("k2", w.body(100), 500);   // seen.repeat: 409 from stage 4 on
//   w.crash_and_restart("k3", w.body(100), "before-money");
//   auto bob = w.other_client("bob", 1'000);                 // for keys that two clients send
//   CHECK(bob.send("k", 50).status == 201);
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e/stage_process.h"

namespace lab::testing {

// A client other than alice, with an account to pay from (opening with the balance asked for) and an empty
// one to pay into.
struct OtherClient {
  LabClient client;
  std::int64_t from = 0;
  std::int64_t to = 0;

  // Its own transfer of amount from `from` to `to` under key.
  Reply send(const std::string& key, std::int64_t amount) const { return client.transfer(from, to, amount, key); }
  std::int64_t balance() const { return client.balance(from); }
};

// What a repeat is told while the first request with its key still runs.
struct InFlightRepeat {
  Reply first;                           // the slow first request's reply, once it ended
  Reply repeat;                          // the reply to the repeat, sent while the first slept
  std::size_t transfers_when_answered = 0;   // ledger entries when the repeat was answered
};

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
    return transfer_body(from, to, amount, memo);
  }
  // POST /transfers from alice (send) or from another client (send_as), under key.
  Reply send(const std::string& key, const std::string& raw_body, httplib::Headers extra = {}) const {
    return send_as(alice, key, raw_body, std::move(extra));
  }
  Reply send_as(const LabClient& who, const std::string& key, const std::string& raw_body,
                httplib::Headers extra = {}) const {
    return who.post("/transfers", raw_body, with_idempotency_key(key, std::move(extra)));
  }

  OtherClient other_client(const std::string& name, std::int64_t opening) const;

  // Sends alice's request under key, slowed by delay_ms after it claims its key (Lab-Delay-Ms), runs
  // `meanwhile` as soon as the claim is in the key table (not after a fixed sleep, so a slow machine cannot
  // run it too early), and returns the slow request's reply once it ended. Stage 2 on: stage 1 has no key table.
  Reply send_slowly_while(const std::string& key, const std::string& raw_body, int delay_ms,
                          const std::function<void()>& meanwhile) const;
  // send_slowly_while with the same request repeated meanwhile.
  InFlightRepeat repeat_while_first_runs(const std::string& key, const std::string& raw_body, int delay_ms) const;

  // Sends alice's request with Lab-Crash: crash_point ("before-money" or "after-money"), makes sure it got no
  // response and the server exited with the crash code, and starts the server again on the same database.
  // Throws (failing the test) if the server did not crash there.
  void crash_and_restart(const std::string& key, const std::string& raw_body, const std::string& crash_point);
};

}  // namespace lab::testing
