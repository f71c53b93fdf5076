// session.h: what the playground is showing now: one real stage server on a fresh SQLite file, told
// either a `grader demo` story (a guided tour) or the learner's own requests (free mode). docs/teach/the-playground.md "The
// playground".
//
//   auto s = Session::tour(*find_demo_scenario("lost-response"), DemoRole::Flawed, {.seed = 1, .step = 2});
//   s->next();                        // the story tells its next step, with its real requests
//   s->predict("replay");             // a repeat the story holds until the learner has guessed its answer
//   auto f = Session::free(stand, {.seed = 1});
//   f->send({.client = "alice", .key = "rent-1", .amount = 1500});
//   nlohmann::json st = f->state();   // history (the newest kSessionEventsKept events), narration, tables
//
// One thread, the teller, owns the Scene (the server and its clients) and runs the story or the learner's
// actions in order; the HTTP threads only post to it and read the state. A story is held in the observer
// calls of grader::Scene (before a step, before a repeat): that is where the learner's clicks come in.
// Thread safety: every public method may be called from any thread; mutex_ guards the fields below it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "grader/demo/demo_scenarios.h"
#include "grader/demo/demo_scene.h"
#include "grader/record/history.h"

namespace playground {

// The newest events a session's history keeps; older ones are dropped and the state says how many
// (history_dropped), so free mode can run all day. Measured: a history event costs about 1 KB of state
// JSON (its own ~440 bytes, its bar in the timeline SVG ~470, its findings), so 2,000 events keep the state
// near 2 MB and its building (a few times that in memory) small; that is 1,000 single sends, or 62 sends of
// 16 copies, and every guided tour whole (the longest, simultaneous-retries, makes 288). docs/teach/the-playground.md "The
// playground", limits.
constexpr std::size_t kSessionEventsKept = 2'000;

struct SessionOptions {
  int seed = 1;         // carried in the URL and the state; the demo stories send the same requests every time
  int step = 0;         // a tour runs without stopping until this many steps are told
  std::string bin_dir;  // where the stage binaries are ("": beside this program, <build>/stages)
  // simultaneous-retries on its fixing stage sends as many bursts as the flawed stage needed (grader demo
  // does the same); the playground remembers it from the last flawed tour, else kFixingBursts.
  std::optional<grader::Outcome> first_telling;
};

// One send of free mode, as the page's form says it.
struct SendOrder {
  std::string client = "alice";  // "alice" or "bob": each has two accounts; a transfer goes from the first to the second
  std::string key;               // the Idempotency-Key; empty: none is sent
  std::int64_t amount = 0;       // minor units (cents)
  int copies = 1;                // > 1: sent at once, on their own connections
  bool drop = false;             // the client gives up after 200 ms while the server works on (600 ms)
  std::string crash;             // "", "before-money" or "after-money" (Lab-Crash)
  int delay_ms = 0;              // Lab-Delay-Ms: the server's processing time
};

// Why an order is refused (a 400 of the playground's API), or "".
std::string invalid_order(const SendOrder& order);

nlohmann::json stand_json(const grader::DemoStand& stand);  // {"binary", "label"}

class Session : public grader::SceneObserver {
 public:
  static std::unique_ptr<Session> tour(const grader::DemoScenario& scenario, grader::DemoRole role,
                                       SessionOptions options);
  static std::unique_ptr<Session> free(const grader::DemoStand& stand, SessionOptions options);
  ~Session() override;  // ends the story or the free mode, stops the server, joins the teller
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // --- What the learner does ---
  void next();                                // tour: tell one more step
  bool predict(const std::string& choice);    // false: nothing waits for a prediction
  void send(const SendOrder& order);          // free mode: queued, done by the teller in order
  void restart();                             // SIGKILL, then the same database in a new process
  void advance_clock(int seconds);

  // --- What the page shows ---
  nlohmann::json state() const;               // without the version: the playground numbers the states
  std::string history_jsonl() const;          // the grader's history format
  const grader::DemoScenario* scenario() const { return scenario_; }  // nullptr in free mode
  grader::DemoRole role() const { return role_; }
  int seed() const { return options_.seed; }
  int step() const;                           // steps told (tour) or actions done (free mode)
  std::optional<grader::Outcome> outcome() const;  // the story's, once told

  // --- grader::SceneObserver: called on the teller thread; may block ---
  void before_step(int number) override;
  void said(grader::LineKind kind, const std::string& text) override;
  void before_repeat(const grader::HttpRequest& request) override;

 private:
  struct Action {  // free mode: what the learner asked, done by the teller in order
    enum class Kind { Send, Restart, Clock } kind;
    SendOrder order;
    int seconds = 0;
  };

  Session(const grader::DemoScenario* scenario, grader::DemoRole role, grader::DemoStand stand, SessionOptions options);
  grader::Narration narration();  // what both tellers tell their Scene with
  void tell_story();        // the teller of a tour
  void serve_free_mode();   // the teller of free mode
  void wait_until_ended();  // after the story: the server stays up for the page until the session ends
  void post(Action action);
  void throw_if_ended() const;  // requires mutex_ held

  const grader::DemoScenario* scenario_;  // nullptr in free mode
  const grader::DemoRole role_;
  const grader::DemoStand stand_;
  const SessionOptions options_;
  const std::string check_;  // the history's check name: "lost-response/flawed", "free/stage4_two_phase"
  grader::History history_{kSessionEventsKept};  // thread-safe itself

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool ending_ = false;
  std::string waiting_ = "busy";  // "step", "prediction", "busy", "ready" (free mode), "finished"
  int allowed_step_ = 0;          // the teller may tell steps up to this one
  int current_step_ = 0;          // the step being told (0: the setting up before step 1)
  int auto_until_ = 0;            // steps up to this one were told without the learner: no predictions
  std::optional<grader::HttpRequest> prediction_request_;
  std::string prediction_;  // the learner's choice, once made
  struct Line {
    int step;
    grader::LineKind kind;
    std::string text;
  };
  std::vector<Line> narration_;
  std::string database_path_;
  std::optional<grader::Outcome> outcome_;
  std::string verdict_, error_;
  std::deque<Action> actions_;
  int actions_done_ = 0;

  std::jthread teller_;  // last: it starts after every field above is ready
};

}  // namespace playground
