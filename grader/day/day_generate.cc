// day_generate.cc: see day_generate.h. One function per story; each writes the sends as the client made
// them. Times inside a story are real milliseconds the replay waits (a gateway's timeout, a retry's
// backoff); the server's processing time is a Lab-Delay-Ms. They are short so a whole day replays in
// seconds, and in the same proportions as the real thing: the gateway gives up before the server is done.
#include "grader/day/day_generate.h"

#include <algorithm>
#include <functional>
#include <map>

#include "grader/base/rng.h"

namespace grader {
namespace {

constexpr std::int64_t kLeaseMs = 30'000;      // the stages' default --lease: a dead claim's wait
constexpr std::int64_t kDayLengthMs = 9 * 3'600'000LL;  // 09:00 to 18:00
constexpr const char* kCurrency = "KRW";       // the article's teller moves won

class Generator {
 public:
  explicit Generator(const DayShape& shape) : rng_(shape.seed), shape_(shape) {}

  DayLog run() {
    day_.seed = shape_.seed;
    make_bank();
    while (static_cast<std::int64_t>(made_.size()) < shape_.intents) story();
    finish();
    return day_;
  }

 private:
  // A story adds one intent (two for the stories between two clients). Weights are per 10,000 intents.
  struct Story {
    const char* name;
    int weight;
    void (Generator::*make)();
  };
  static const Story kStories[];

  void story() {
    int total = 0;
    for (const Story* s = kStories; s->name; ++s) total += s->weight;
    int pick = static_cast<int>(rng_.between(0, total - 1));
    for (const Story* s = kStories; s->name; ++s) {
      if (pick < s->weight) return (this->*s->make)();
      pick -= s->weight;
    }
  }

  // --- the bank: a client per hundred intents, two or three accounts each ---
  void make_bank() {
    const std::int64_t clients = std::max<std::int64_t>(4, shape_.intents / 100);
    for (std::int64_t c = 1; c <= clients; ++c) {
      std::string client = "c" + pad(c, 4);
      day_.clients.push_back(client);
      for (std::int64_t k = rng_.between(2, 3); k > 0; --k) {
        std::string name = "a" + pad(static_cast<std::int64_t>(day_.accounts.size()) + 1, 5);
        day_.accounts.push_back({name, client, 0, kCurrency});
        accounts_of_[client].push_back(name);
      }
    }
  }

  // --- building blocks ---
  static std::string pad(std::int64_t n, int width) {
    std::string s = std::to_string(n);
    return std::string(std::max(0, width - static_cast<int>(s.size())), '0') + s;
  }
  const std::string& any_client() { return day_.clients[rng_.between(0, day_.clients.size() - 1)]; }
  const std::string& account_of(const std::string& client) {
    const auto& mine = accounts_of_[client];
    return mine[rng_.between(0, mine.size() - 1)];
  }
  std::string new_key() { return "k-" + rng_.hex(8) + "-" + rng_.hex(4) + "-" + rng_.hex(12); }
  std::int64_t when() { return kDayOpensMs + rng_.between(0, kDayLengthMs - 1); }
  std::int64_t amount() { return rng_.between(1, 500) * 100; }  // 100 to 50,000 won

  DayIntent& intent(const char* story, const std::string& client, std::int64_t at_ms) {
    DayIntent i;
    i.client = client;
    i.story = story;
    i.key = new_key();
    i.from = account_of(client);
    i.amount = amount();
    i.currency = kCurrency;
    static const char* kMemos[] = {"rent", "groceries", "salary", "invoice", "refund", "tuition", "lunch", "gift"};
    i.memo = kMemos[rng_.between(0, 7)];
    if (rng_.between(1, 5) == 1) {
      i.kind = "payout";
      i.destination = "KR" + std::to_string(rng_.between(100'000'000'000, 999'999'999'999));
    } else {
      i.kind = "transfer";
      do i.to = account_of(any_client());
      while (i.to == i.from);
    }
    DaySend first;
    first.at_ms = at_ms;
    i.sends.push_back(first);
    made_.push_back(std::move(i));
    return made_.back();
  }
  DayIntent& intent(const char* story) { return intent(story, any_client(), when()); }
  static DaySend after(std::int64_t ms) { DaySend s; s.after_ms = ms; return s; }
  static DaySend during(std::int64_t ms) { DaySend s; s.during_ms = ms; return s; }
  // The server is slow (delay) and the client's gateway gives up first (timeout < delay).
  void slow_and_timed_out(DaySend& s, std::int64_t delay, std::int64_t timeout) {
    s.delay_ms = delay;
    s.timeout_ms = timeout;
  }

  // --- the stories ---
  void plain() { intent("plain"); }

  void gateway_timeout() {  // the gateway gives up; the server finishes; the client retries later
    DayIntent& i = intent("gateway-timeout");
    std::int64_t delay = rng_.between(40, 60), timeout = rng_.between(10, 20);
    slow_and_timed_out(i.sends[0], delay, timeout);
    i.sends.push_back(after(delay - timeout + rng_.between(10, 30)));
  }

  void load_balancer_drop() {  // the connection is cut while the server works
    DayIntent& i = intent("lb-drop");
    i.sends[0].delay_ms = rng_.between(20, 40);
    i.sends[0].drop = true;
    i.sends.push_back(after(i.sends[0].delay_ms + rng_.between(10, 30)));
  }

  void signal_loss() {  // the phone went into a tunnel: the answer never arrived
    DayIntent& i = intent("signal-loss");
    i.sends[0].drop = true;
    i.sends.push_back(after(rng_.between(30, 90)));
  }

  void double_click() {  // the user clicks twice: two sends a few ms apart
    DayIntent& i = intent("double-click");
    i.sends.push_back(during(rng_.between(0, 3)));
  }

  void backoff() {  // timeouts, then retries with exponential backoff and jitter until an answer
    DayIntent& i = intent("backoff");
    slow_and_timed_out(i.sends[0], rng_.between(60, 90), 15);
    for (std::int64_t wait = 15; wait <= 60; wait *= 2) {
      DaySend retry = after(wait + rng_.between(0, wait / 2));
      if (wait < 60) retry.timeout_ms = 15;
      i.sends.push_back(retry);
    }
  }

  void give_up() {  // three timeouts, then the client gives up and never learns what happened
    DayIntent& i = intent("give-up");
    slow_and_timed_out(i.sends[0], rng_.between(40, 60), 10);
    for (int k = 0; k < 2; ++k) {
      DaySend retry = after(rng_.between(5, 15));
      slow_and_timed_out(retry, rng_.between(40, 60), 10);
      i.sends.push_back(retry);
    }
  }

  void concurrent_retry() {  // a retry arrives while the first is still running, then one after it
    DayIntent& i = intent("concurrent-retry");
    i.sends[0].delay_ms = rng_.between(50, 80);
    i.sends.push_back(during(rng_.between(15, 30)));
    i.sends.push_back(after(rng_.between(40, 70)));
  }

  void sdk_retry() {  // an outbox, written with another JSON library, sends an answered request again
    DayIntent& i = intent("sdk-retry");
    DaySend again = after(rng_.between(10, 40));
    again.reordered = true;
    i.sends.push_back(again);
  }

  void teller_change() {  // the article: 200,000 is typed, no answer, corrected to 300,000, same key
    DayIntent& i = intent("teller-change");
    i.kind = "transfer", i.destination.clear();
    if (i.to.empty()) do i.to = account_of(any_client()); while (i.to == i.from);
    i.amount = rng_.between(150, 250) * 1000;
    std::int64_t delay = rng_.between(40, 60), timeout = rng_.between(10, 20);
    slow_and_timed_out(i.sends[0], delay, timeout);
    DaySend corrected = after(delay - timeout + rng_.between(10, 30));
    corrected.amount = i.amount + 100'000;
    i.sends.push_back(corrected);
  }

  void key_collision() {  // two clients' apps number their keys the same way: "order-1001"
    std::string key = "order-" + std::to_string(rng_.between(1000, 9999));
    std::string first = any_client(), second;
    do second = any_client(); while (second == first);
    std::int64_t at = when();
    intent("key-collision", first, at).key = key;
    intent("key-collision", second, std::min(at + rng_.between(1'000, 60'000), kDayOpensMs + kDayLengthMs - 1))
        .key = key;
  }

  void foreign_key() {  // a client sends another client's key and body (a shared, buggy SDK cache)
    std::string owner = any_client(), other;
    do other = any_client(); while (other == owner);
    std::int64_t at = when();
    DayIntent& original = intent("foreign-key", owner, at);
    std::string key = original.key;
    std::size_t original_index = made_.size() - 1;
    DayIntent& copy = intent("foreign-key", other, std::min(at + rng_.between(1'000, 60'000), kDayOpensMs + kDayLengthMs - 1));
    copy.key = key;
    copy.body_of = std::to_string(original_index);  // resolved to an id in finish()
  }

  void crash_before_money() {  // the server dies after the key, before the money; the retry waits out the lease
    DayIntent& i = intent("crash-before-money");
    i.sends[0].crash = "before-money";
    DaySend retry = after(rng_.between(20, 50));
    retry.clock_ms = kLeaseMs + 1'000;
    i.sends.push_back(retry);
  }

  void crash_after_money() {  // the server dies after the money, before the answer
    DayIntent& i = intent("crash-after-money");
    i.sends[0].crash = "after-money";
    i.sends.push_back(after(rng_.between(20, 50)));
  }

  void after_retention() {  // an offline queue flushes the next day, after the key's retention
    DayIntent& i = intent("after-retention");
    DaySend tomorrow;
    tomorrow.next_day = true;
    tomorrow.at_ms = kDayOpensMs + rng_.between(0, 3 * 3'600'000 - 1);
    i.sends.push_back(tomorrow);
  }

  void overdraft() { intent("overdraft").amount = -1; }  // set in finish(): more than the bank holds

  void unknown_account() {
    DayIntent& i = intent("unknown-account");
    i.kind = "transfer", i.destination.clear(), i.to = kUnknownAccount;
  }

  // --- order, ids, and opening balances that cover every send (so only "overdraft" is ever 402) ---
  void finish() {
    std::vector<std::size_t> order(made_.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return *made_[a].sends[0].at_ms < *made_[b].sends[0].at_ms; });
    std::vector<std::string> id_of(made_.size());
    for (std::size_t k = 0; k < order.size(); ++k) id_of[order[k]] = "i" + pad(static_cast<std::int64_t>(k) + 1, 5);
    std::map<std::string, std::int64_t> spend;
    for (std::size_t k = 0; k < made_.size(); ++k) {
      DayIntent& i = made_[k];
      i.id = id_of[k];
      if (!i.body_of.empty()) {
        const DayIntent& original = made_[std::stoul(i.body_of)];
        i.body_of = id_of[std::stoul(i.body_of)];
        i.kind = original.kind, i.from = original.from, i.to = original.to, i.destination = original.destination;
        i.amount = original.amount, i.memo = original.memo;
      }
      if (i.amount < 0) continue;
      for (const auto& s : i.sends) spend[i.from] += s.amount.value_or(i.amount);
    }
    std::int64_t total = 0;
    for (auto& a : day_.accounts) {
      a.balance = (spend[a.name] / 100'000 + rng_.between(2, 10)) * 100'000;
      total += a.balance;
    }
    for (std::size_t k : order) {
      DayIntent& i = made_[k];
      if (i.amount < 0) i.amount = std::min(total + 1, kMaxMoney);
      day_.intents.push_back(std::move(i));
    }
    day_.reindex();
  }

  Rng rng_;
  const DayShape shape_;
  DayLog day_;
  std::map<std::string, std::vector<std::string>> accounts_of_;
  std::vector<DayIntent> made_;  // in the order made; sorted by time at the end
};

// Most requests of a day go through once. The rest are the ways a client ends up sending again, about
// one intent in twenty: enough that a server without protection moves money twice hundreds of times a day.
const Generator::Story Generator::kStories[] = {
    {"plain", 9'506, &Generator::plain},
    {"gateway-timeout", 100, &Generator::gateway_timeout},
    {"lb-drop", 40, &Generator::load_balancer_drop},
    {"signal-loss", 40, &Generator::signal_loss},
    {"double-click", 50, &Generator::double_click},
    {"backoff", 30, &Generator::backoff},
    {"give-up", 20, &Generator::give_up},
    {"concurrent-retry", 30, &Generator::concurrent_retry},
    {"sdk-retry", 30, &Generator::sdk_retry},
    {"teller-change", 20, &Generator::teller_change},
    {"key-collision", 10, &Generator::key_collision},  // two intents each
    {"foreign-key", 8, &Generator::foreign_key},       // two intents each
    {"crash-before-money", 3, &Generator::crash_before_money},  // each crash is a restart: few, but there
    {"crash-after-money", 3, &Generator::crash_after_money},
    {"after-retention", 30, &Generator::after_retention},
    {"overdraft", 40, &Generator::overdraft},
    {"unknown-account", 40, &Generator::unknown_account},
    {nullptr, 0, nullptr},
};

}  // namespace

DayLog generate_day(const DayShape& shape) { return Generator(shape).run(); }

}  // namespace grader
