// demo_scene.h: one telling of a `grader demo` story: a real stage server on a fresh SQLite file, and the
// narrator that shows what happens to it. docs/teach/the-day.md "The day" (the show).
//
//   Scene scene(narration, "stage 1", stage_command(path));   // starts the server (Target::launch)
//   auto alice = scene.client("alice");
//   auto from = scene.account(alice, 10'000, "USD");
//   scene.step("Alice sends 15.00 USD.");                     // "1. Alice sends ..." (pauses with --step)
//   Exchange x = scene.send(scene.transfer(alice, "rent-1", body));   // shows "> request" and "< response"
//   scene.moves("rent");                                      // ledger entries with that memo: the damage
//
// Requests are shown like curl -v (`> ` sent, `< ` received), requests dim, damage red. Colour only on a
// terminal and never with NO_COLOR (report.h:use_colour); no cursor movement at all, so the output reads the
// same in a log. Thread safety: one thread tells a scene; send_together's threads only send and read.
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "grader/record/history.h"
#include "grader/record/in_flight.h"
#include "grader/record/world.h"
#include "grader/wire/lab_api.h"
#include "grader/wire/target.h"
#include "grader/wire/wire.h"

namespace grader {

// What a narrator says, for an observer that shows it its own way.
enum class LineKind { Step, Note, Damage, Good };

// Someone watching a scene besides the terminal: the playground's guided tour (playground/session.cc).
// Every call comes from the thread telling the scene, never from send_together's threads, and may block:
// the tour holds the story there until the learner clicks "next" or has predicted the answer.
class SceneObserver {
 public:
  virtual ~SceneObserver() = default;
  virtual void before_step(int number) { (void)number; }  // before step `number` is told
  virtual void said(LineKind kind, const std::string& text) {
    (void)kind;
    (void)text;
  }
  // Before a request whose Idempotency-Key this scene sent before goes out: a repeat.
  virtual void before_repeat(const HttpRequest& request) { (void)request; }
};

// How a demo is shown; the same for every scene of a run.
struct Narration {
  std::ostream* out = nullptr;  // the terminal's text; nullptr: none
  bool colour = false;
  bool step_by_step = false;  // --step: wait for Enter before each step
  SceneObserver* observer = nullptr;
  // Every request of the scene and its answer in the grader's history format (`grader demo --history`,
  // the playground's timeline), under the check name `check`.
  History* history = nullptr;
  std::string check = "demo";

  std::string bold(const std::string& text) const { return paint("\x1b[1m", text); }
  std::string dim(const std::string& text) const { return paint("\x1b[2m", text); }
  std::string red(const std::string& text) const { return paint("\x1b[31m", text); }
  std::string green(const std::string& text) const { return paint("\x1b[32m", text); }

 private:
  std::string paint(const char* code, const std::string& text) const { return colour ? code + text + "\x1b[0m" : text; }
};

// "15.00 USD" (minor units: cents) or "200,000 KRW" (a currency without minor units).
std::string format_money(std::int64_t amount, const std::string& currency);

class Scene {
 public:
  // Starts the server; throws StartError (the server did not come up) with its stderr.
  Scene(const Narration& narration, std::string label, const std::string& command);
  ~Scene();  // stops the server
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  const std::string& label() const { return label_; }  // "stage 1", "wrong turn 2a"
  Target& target() { return *target_; }
  LabApi& api() { return api_; }

  // --- Telling ---
  void step(const std::string& sentence);  // numbered, bold; the pause of --step comes first
  void note(const std::string& line);      // plain narration
  void damage(const std::string& line);    // red: the flaw, as it happens
  void good(const std::string& line);      // green: the fix, as it happens

  // --- The bank (admin API; not shown as requests: it is the stage set, not the play) ---
  ClientInfo client(const std::string& name);
  Account account(const ClientInfo& owner, std::int64_t balance, const std::string& currency);
  // Most stories' cast: a client with an account holding `balance` and an empty one, both in `currency`.
  struct ClientWithTwoAccounts {
    ClientInfo client;
    Account from, to;
  };
  ClientWithTwoAccounts client_with_two_accounts(const std::string& name, std::int64_t balance,
                                                 const std::string& currency);
  void show_balances(const std::string& when, const std::vector<Account>& accounts);
  std::vector<LedgerEntry> entries(const std::string& memo);  // the ledger entries carrying this memo
  int moves(const std::string& memo) { return static_cast<int>(entries(memo).size()); }
  // "   <when>: the ledger holds 1 entry for "rent" (15.00 USD)"; returns the count.
  int show_ledger(const std::string& when, const std::string& memo);
  // Waits (up to `patience`) until `count` entries carry the memo: a request whose answer was lost finishes.
  bool wait_for_moves(const std::string& memo, int count, std::chrono::milliseconds patience);
  void advance_clock(std::chrono::seconds by);  // POST /admin/clock, shown
  void restart_after_crash();                   // the same database, a new process

  // --- Requests ---
  HttpRequest transfer(const ClientInfo& who, const std::string& key, const std::string& body) const;
  Exchange send(const HttpRequest& request);  // shows the request and its answer
  // Sends, then gives up after `gateway_timeout` like a gateway would: the answer is lost to the client.
  void send_and_lose(const HttpRequest& request, std::chrono::milliseconds gateway_timeout);
  // Shows the request now and sends it on another thread; show_answer() the result later.
  std::future<Exchange> send_in_background(const HttpRequest& request);
  void show_request(const HttpRequest& request);
  void show_answer(const Exchange& x);
  // `copies` identical requests on their own connections, all sent but their last byte, then those last
  // bytes together: as simultaneous as a client can make them. Shown as one summary line by the caller.
  std::vector<Exchange> send_together(const HttpRequest& request, int copies);

 private:
  Narration narration_;
  void say(LineKind kind, const std::string& text);
  void request_line(const std::string& text);  // "> POST ...": dim on a terminal
  void repeat_check(const HttpRequest& request);  // tells the observer when the request's key was sent before
  std::int64_t record_invoke(const HttpRequest& request);  // 0 without a history
  void record_complete(std::int64_t op, const Exchange& x);

  std::string label_;
  std::unique_ptr<Target> target_;
  std::set<std::string> keys_sent_;       // Idempotency-Key values already sent (a repeat's test)
  std::unique_ptr<InFlight> in_flight_;   // watches lost requests to their end, when there is a history
  LabApi api_;
  int steps_told_ = 0;
  std::map<std::string, std::string> names_by_token_;     // "as alice" beside a request
  std::map<std::int64_t, std::string> owners_by_account_;  // "account 1 (alice)"
};

// "201 Created": the status line as a person reads it.
std::string status_line(int status);

}  // namespace grader
