// demo_stories.h: the stories `grader demo` tells, one per failure mode of the article and the wrong turns.
// docs/teach/the-day.md "The day" (the show); each story's flaw is described in its stage's "What it still gets wrong" or in
// "Wrong turns".
//
// A story is told twice with the same words: once on the stage that has the flaw, once on the stage that
// fixes it (demo.cc runs both). It judges what it saw (ledger entries by memo, balances, statuses), never
// what it expected to see, and says so in an Outcome:
//
//   Outcome lost_response(Scene& scene, const Outcome* first_telling);
//   // first_telling: null on the flawed stage; on the fixing stage, what the first telling found
//   // (the simultaneous-retries story sends as many bursts the second time as it needed the first time)
#pragma once

#include <chrono>
#include <string>

#include "grader/demo/demo_scene.h"

namespace grader {

// A lost response, as the stories stage it: the server is slower than the client's gateway is patient.
constexpr const char* kProcessingDelayMs = "600";  // Lab-Delay-Ms: holds the request after its key is claimed
constexpr std::chrono::milliseconds kGatewayTimeout{200};
// How long a request whose answer was lost may take to finish on the server (the delay above, and slack).
constexpr std::chrono::milliseconds kFinishPatience{3'000};

// A 2xx came back (a story's exchange may have no response: the connection was cut).
inline bool succeeded(const Exchange& x) { return x.response && x.response->status / 100 == 2; }

// The lost response itself: `request` is held by the server (Lab-Delay-Ms), the gateway gives up first,
// and the server finishes anyway; the ledger shows it did. In demo_stories_keys.cc.
void lose_slow_answer(Scene& scene, const HttpRequest& request, const std::string& memo);

struct Outcome {
  bool flaw_shown = false;  // the failure happened in this telling
  std::string what;         // "the money moved 2 times for one intent": the verdict, in words
  int rounds = 0;           // simultaneous-retries: the bursts this telling sent
};

using Story = Outcome (*)(Scene& scene, const Outcome* first_telling);

// demo_stories_keys.cc: what a key table must decide
Outcome lost_response(Scene& scene, const Outcome* first_telling);
Outcome changed_amount(Scene& scene, const Outcome* first_telling);
Outcome simultaneous_retries(Scene& scene, const Outcome* first_telling);

// demo_stories_crash.cc: what a key must not say before, or forget after, the money moves
Outcome crash_completed_first(Scene& scene, const Outcome* first_telling);
Outcome crash_money_first(Scene& scene, const Outcome* first_telling);
Outcome in_flight_done(Scene& scene, const Outcome* first_telling);

// demo_stories_replay.cc: what a repeat is answered, to whom, and for how long
Outcome recomputed_response(Scene& scene, const Outcome* first_telling);
Outcome global_key_leak(Scene& scene, const Outcome* first_telling);
Outcome retry_after_expiry(Scene& scene, const Outcome* first_telling);

// demo_stories_client.cc: what only the client can do (keep one key for one intent)
Outcome sdk_gives_up(Scene& scene, const Outcome* first_telling);

// "the money moved 2 times" / "once" / "never": the count in words.
std::string times(int moves);

}  // namespace grader
