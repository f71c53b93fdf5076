// day_replay.cc: see day_replay.h.
#include "grader/day/day_replay.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "grader/base/rng.h"
#include "grader/record/world.h"

namespace grader {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::int64_t kUnknownAccountId = (1LL << 53) - 1;  // no lab server has that many accounts
// Connecting to a server that is down (it crashed, the replay restarts it) fails fast, and the send waits
// for the restart; nothing of it had left the client, so sending it then is what a real client does.
constexpr milliseconds kConnectPatienceWhileDown{100};
constexpr milliseconds kGiveUpOnDownServer{30'000};
constexpr int kClockTries = 500;
constexpr double kDefaultIntentsPerSecond = 10000;  // the default speed starts intents about this fast ...
constexpr double kMaxDefaultSpeed = 10000;  // ... but squeezes no day-second below 0.1 ms, so a small day's
                                            // intents keep their order (a minute apart: 6 ms apart)  // 20 ms apart: as long as a restart may take
// After the last send, answers the clients gave up on may still be running on the server (their
// Lab-Delay-Ms). The audit reads the ledger after the longest of them ends, plus this margin, and only
// once two reads agree.
constexpr milliseconds kQuietMargin{100};

// The server is shared by every sending thread, and a crash takes it away from all of them at once.
// enter()/leave() bracket each exchange; restart() waits for the exchanges in flight to end (the dead
// server has reset them), restarts the process, and lets the waiting sends through to the new port.
class ServerGate {
 public:
  explicit ServerGate(Target& target) : target_(target) {}

  std::uint64_t enter() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !restarting_; });
    ++in_flight_;
    return epoch_;
  }
  void leave() {
    std::lock_guard lock(mutex_);
    --in_flight_;
    changed_.notify_all();
  }
  // After a send that was told to crash the server got no answer. Two crashes of one server restart it once.
  void restart(std::uint64_t epoch_of_crash) {
    {
      std::unique_lock lock(mutex_);
      if (epoch_of_crash != epoch_ || restarting_) return;
      restarting_ = true;
      changed_.wait(lock, [&] { return in_flight_ == 0; });
    }
    std::string error;
    try {
      target_.restart_after_crash();
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::lock_guard lock(mutex_);
    ++epoch_, ++restarts_;
    restarting_ = false;
    if (!error.empty() && failure_.empty()) failure_ = error;
    changed_.notify_all();
  }
  int restarts() {
    std::lock_guard lock(mutex_);
    return restarts_;
  }
  std::string failure() {
    std::lock_guard lock(mutex_);
    return failure_;
  }

 private:
  Target& target_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool restarting_ = false;  // guarded by mutex_
  int in_flight_ = 0;        // guarded by mutex_
  std::uint64_t epoch_ = 0;  // guarded by mutex_: one per server process
  int restarts_ = 0;         // guarded by mutex_
  std::string failure_;      // guarded by mutex_: a restart that failed
};

// A client's kept-alive connection, for sends that end normally (no timeout, drop or crash). Real clients
// reuse connections, and a new TCP connection per request would make the replay measure connect() more
// than the server. A connection is reused only on the same server process, while fresh, and when the
// server has not closed it (Connection::unusable), so a request is never sent into a closed connection.
struct KeptConnection {
  std::optional<Connection> connection;
  std::uint64_t epoch = 0;
  std::chrono::steady_clock::time_point last_used;
};
// One per instance (by Address::authority): with several --url instances each request goes to the next
// one, as Target::address() says, and may reuse only a connection to that instance.
using KeptConnections = std::map<std::string, KeptConnection>;
constexpr milliseconds kReuseIdleAtMost{1'000};  // the servers close idle connections after 5 s

class Replayer {
 public:
  Replayer(const DayLog& day, Target& target, const ReplayConfig& config, DayReplay& out)
      : day_(day), target_(target), config_(config), out_(out), gate_(target), api_(target) {}

  void run() {
    out_.nonce = "r" + std::to_string(fresh_seed() % 1'000'000);
    out_.crashes_skipped = !target_.can_restart();
    open_bank();
    ledger_start_ = api_.ledger_end();
    begin_ = Clock::now();
    out_.attempts.resize(day_.send_count());
    std::size_t slot = 0;
    for (std::size_t i = 0; i < day_.intents.size(); ++i)
      for (std::size_t k = 0; k < day_.intents[i].sends.size(); ++k) slot_of_[{i, k}] = slot++;

    run_chains(/*next_day=*/false);
    if (has_next_day()) {
      wait_until_quiet();
      std::int64_t now = api_.advance_clock_ms(day_.next_day_clock_ms);
      out_.next_day_from_ms = now - day_.next_day_clock_ms / 2;
      run_chains(/*next_day=*/true);
    }
    std::int64_t end = wait_until_quiet();
    out_.seconds = std::chrono::duration<double>(Clock::now() - begin_).count();
    if (!gate_.failure().empty()) throw StartError("the server did not come back after a crash: " + gate_.failure());
    out_.restarts = gate_.restarts();
    for (auto& e : api_.ledger_after(ledger_start_))
      if (e.id <= end) out_.ledger.push_back(std::move(e));
    read_balances();
    if (config_.progress) std::fprintf(stderr, "\r\033[2K");
  }

 private:
  // --- the bank of the day, made through the admin API ---
  void open_bank() {
    std::map<std::string, std::int64_t> client_id;
    for (const auto& c : day_.clients) {
      ClientInfo info = api_.create_client(c + "-" + out_.nonce);
      out_.client_token[c] = info.token;
      client_id[c] = info.id;
    }
    for (const auto& a : day_.accounts)
      out_.account_id[a.name] = api_.create_account(client_id.at(a.client), a.balance, a.currency).id;
  }

  bool has_next_day() const {
    for (const auto& i : day_.intents)
      for (const auto& s : i.sends)
        if (s.next_day) return true;
    return false;
  }

  // --- chains: one intent's sends of one day, in order, by one worker ---
  void run_chains(bool next_day) {
    std::vector<std::size_t> chains;
    for (std::size_t i = 0; i < day_.intents.size(); ++i)
      for (const auto& s : day_.intents[i].sends)
        if (s.next_day == next_day) {
          chains.push_back(i);
          break;
        }
    auto first_at = [&](std::size_t i) {
      for (const auto& s : day_.intents[i].sends)
        if (s.next_day == next_day) return s.at_ms.value_or(0);
      return std::int64_t{0};
    };
    std::stable_sort(chains.begin(), chains.end(), [&](auto a, auto b) { return first_at(a) < first_at(b); });
    if (chains.empty()) return;
    const std::int64_t first = first_at(chains.front()), span = first_at(chains.back()) - first;
    const double default_ms = 1000.0 * static_cast<double>(chains.size()) / kDefaultIntentsPerSecond;
    const double speed =
        config_.speed > 0 ? config_.speed : std::clamp(span / std::max(default_ms, 1.0), 1.0, kMaxDefaultSpeed);
    const auto phase_begin = Clock::now();
    auto start_of = [&](std::size_t i) {
      return phase_begin + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double, std::milli>((first_at(i) - first) / speed));
    };
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < std::max(1, config_.workers); ++w)
      workers.emplace_back([&] {
        try {
          KeptConnections kept;
          for (std::size_t n; (n = next.fetch_add(1)) < chains.size(); ++done) {
            std::this_thread::sleep_until(start_of(chains[n]));
            run_chain(chains[n], next_day, kept);
          }
        } catch (...) {
          std::lock_guard lock(error_mutex_);
          if (!error_) error_ = std::current_exception();
          next = chains.size();  // stop the others: the replay is void
          failed_ = true;
        }
      });
    while (config_.progress && done < chains.size() && !failed_) {
      std::fprintf(stderr, "\r  %s: %zu/%zu intents", next_day ? "next day" : "the day", done.load(), chains.size());
      std::this_thread::sleep_for(milliseconds(100));
    }
    for (auto& t : workers) t.join();
    if (error_) std::rethrow_exception(error_);
  }

  // A send followed by a "during" send runs on its own thread, so the next one can go out while it runs.
  void run_chain(std::size_t intent_index, bool next_day, KeptConnections& kept) {
    const DayIntent& intent = day_.intents[intent_index];
    std::vector<std::size_t> mine;
    for (std::size_t k = 0; k < intent.sends.size(); ++k)
      if (intent.sends[k].next_day == next_day) mine.push_back(k);
    Clock::time_point previous_start{}, previous_end{};
    std::mutex ends_mutex;                 // previous_end, written by the running sends
    std::vector<std::thread> running;      // sends still out, that a "during" send overlaps
    auto join_running = [&] {
      for (auto& t : running) t.join();
      running.clear();
    };
    for (std::size_t n = 0; n < mine.size(); ++n) {
      const std::size_t k = mine[n];
      const DaySend& send = intent.sends[k];
      if (send.after_ms) {
        join_running();
        std::this_thread::sleep_until(previous_end + milliseconds(*send.after_ms));
      } else if (send.during_ms) {
        std::this_thread::sleep_until(previous_start + milliseconds(*send.during_ms));
      }
      previous_start = Clock::now();
      const bool overlapped = n + 1 < mine.size() && intent.sends[mine[n + 1]].during_ms;
      if (!overlapped && running.empty()) {
        auto end = attempt(intent_index, k, &kept);
        previous_end = end;
        continue;
      }
      running.emplace_back([&, intent_index, k] {
        try {
          auto end = attempt(intent_index, k, nullptr);
          std::lock_guard lock(ends_mutex);
          previous_end = std::max(previous_end, end);
        } catch (...) {
          std::lock_guard lock(error_mutex_);
          if (!error_) error_ = std::current_exception();
          failed_ = true;
        }
      });
    }
    join_running();
  }

  // One send; returns when it ended for the client.
  Clock::time_point attempt(std::size_t intent_index, std::size_t k, KeptConnections* kept) {
    const DayIntent& intent = day_.intents[intent_index];
    const DaySend& send = intent.sends[k];
    if (send.clock_ms) advance_clock(send.clock_ms);
    SentAttempt& a = out_.attempts[slot_of_.at({intent_index, k})];
    a.intent = intent_index, a.send = k;
    a.key = out_.nonce + "-" + send.key.value_or(intent.key);
    a.amount = send.amount.value_or(intent.amount);
    a.body = day_body(day_, intent, out_, a.amount, send.reordered);
    a.client = send.as_client.value_or(intent.client);
    HttpRequest request{"POST", intent.kind == "transfer" ? "/transfers" : "/payouts",
                        {{"Authorization", "Bearer " + out_.client_token.at(a.client)},
                         {"Content-Type", "application/json"},
                         {"Idempotency-Key", "\"" + a.key + "\""}},
                        a.body};
    if (send.delay_ms) request.headers.emplace_back("Lab-Delay-Ms", std::to_string(send.delay_ms));
    const bool crash = !send.crash.empty() && !out_.crashes_skipped;
    if (crash) request.headers.emplace_back("Lab-Crash", send.crash);

    a.start_ms = since_begin();
    for (auto deadline = Clock::now() + kGiveUpOnDownServer;;) {
      std::uint64_t epoch = gate_.enter();
      Exchange x = send.timeout_ms || send.drop || crash || !kept ? send_once(request, send)
                                                                  : send_kept_alive(request, *kept, epoch);
      gate_.leave();
      if (!x.maybe_reached && Clock::now() < deadline) {
        std::this_thread::sleep_for(milliseconds(10));  // the server is down: wait for the restart
        continue;
      }
      a.end_ms = since_begin();
      if (x.response) {
        a.status = x.response->status;
        a.content_type = x.response->header("Content-Type").value_or("");
        a.response_body = x.response->body;
        a.replayed = x.response->header("Idempotent-Replayed").value_or("") == "true";
      } else {
        a.error = x.error;
      }
      if (crash && !x.response) gate_.restart(epoch);
      std::lock_guard lock(busy_mutex_);
      busy_until_ = std::max(busy_until_, Clock::now() + milliseconds(send.delay_ms));
      return Clock::now();
    }
  }

  Exchange send_kept_alive(HttpRequest request, KeptConnections& kept_by_instance, std::uint64_t epoch) {
    const Address to = target_.address();
    KeptConnection& kept = kept_by_instance[to.authority()];
    Exchange x;
    auto now = Clock::now();
    if (kept.connection && (kept.epoch != epoch || now - kept.last_used > kReuseIdleAtMost || kept.connection->unusable()))
      kept.connection.reset();
    if (!kept.connection) {
      kept.connection = Connection::open_patiently(to, kConnectPatienceWhileDown, &x.error);
      kept.epoch = epoch;
      if (!kept.connection) return x;  // nothing was sent
    }
    request.keep_alive = true;
    x.maybe_reached = true;
    if (kept.connection->send_all(request.to_wire(to), &x.error)) x.response = kept.connection->read_response(kResponseTimeout, &x.error);
    kept.last_used = Clock::now();
    if (!x.response || x.response->header("Connection").value_or("") == "close") kept.connection.reset();
    return x;
  }

  Exchange send_once(const HttpRequest& request, const DaySend& send) {
    const Address to = target_.address();
    if (!send.drop)
      return exchange(to, request, send.timeout_ms ? milliseconds(*send.timeout_ms) : kResponseTimeout,
                      kConnectPatienceWhileDown);
    Exchange x;  // the connection is cut as soon as the request is out
    auto connection = Connection::open_patiently(to, kConnectPatienceWhileDown, &x.error);
    if (connection) {
      x.maybe_reached = true;
      connection->send_all(request.to_wire(to), &x.error);
      connection->abandon();
      if (x.error.empty()) x.error = "dropped: the connection was cut after the request was sent";
    }
    return x;
  }

  // Moving the clock is not idempotent, but moving it too far only ends leases sooner; a server that is
  // down (another send crashed it) is asked again once it is back.
  void advance_clock(std::int64_t ms) {
    for (int tries = 1;; ++tries) {
      gate_.enter();
      try {
        api_.advance_clock_ms(ms);
        gate_.leave();
        return;
      } catch (const ApiError&) {
        gate_.leave();
        if (tries == kClockTries) throw;
        std::this_thread::sleep_for(milliseconds(20));
      }
    }
  }

  // Every send has ended for its client; the server may still be working on the ones they gave up on.
  std::int64_t wait_until_quiet() {
    Clock::time_point until;
    {
      std::lock_guard lock(busy_mutex_);
      until = busy_until_ + kQuietMargin;
    }
    std::this_thread::sleep_until(until);
    std::int64_t end = api_.ledger_end(ledger_start_);
    for (;;) {
      std::this_thread::sleep_for(kQuietMargin);
      std::int64_t again = api_.ledger_end(end);
      if (again == end) return end;
      end = again;
    }
  }

  void read_balances() {
    for (const auto& a : day_.accounts) {
      std::int64_t id = out_.account_id.at(a.name);
      out_.balances[id] = api_.account(id, out_.client_token.at(a.client)).balance;
    }
  }

  double since_begin() const { return std::chrono::duration<double, std::milli>(Clock::now() - begin_).count(); }

  const DayLog& day_;
  Target& target_;
  const ReplayConfig config_;
  DayReplay& out_;
  ServerGate gate_;
  LabApi api_;
  Clock::time_point begin_;
  std::int64_t ledger_start_ = 0;  // the last ledger id before the day
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> slot_of_;  // constant once the sends start
  std::mutex error_mutex_;
  std::exception_ptr error_;  // guarded by error_mutex_: the first failure of a sending thread
  std::atomic<bool> failed_{false};
  std::mutex busy_mutex_;
  Clock::time_point busy_until_;  // guarded by busy_mutex_: when the last send's server work may end
};

}  // namespace

std::string DayReplay::tag(const DayIntent& intent) const {
  return "#" + nonce + "." + (intent.body_of.empty() ? intent.id : intent.body_of);
}

std::string day_body(const DayLog&, const DayIntent& intent, const DayReplay& replay, std::int64_t amount,
                     bool reordered) {
  const std::int64_t from = replay.account_id.at(intent.from);
  const std::string memo = intent.memo.empty() ? replay.tag(intent) : intent.memo + " " + replay.tag(intent);
  std::string body;
  if (intent.kind == "transfer") {
    std::int64_t to = intent.to == kUnknownAccount ? kUnknownAccountId : replay.account_id.at(intent.to);
    body = transfer_body(from, to, amount, intent.currency, memo);
  } else {
    body = payout_body(from, intent.destination, amount, intent.currency, memo);
  }
  if (!reordered) return body;
  // The same JSON value through another library: members in reverse order, a space after each separator.
  auto j = nlohmann::ordered_json::parse(body);
  std::string out = "{";
  std::vector<std::pair<std::string, std::string>> members;
  for (auto& [name, value] : j.items()) members.emplace_back(name, value.dump());
  for (auto m = members.rbegin(); m != members.rend(); ++m)
    out += (m == members.rbegin() ? "" : ", ") + nlohmann::json(m->first).dump() + ": " + m->second;
  return out + "}";
}

DayReplay replay_day(const DayLog& day, Target& target, const ReplayConfig& config) {
  DayReplay out;
  Replayer(day, target, config, out).run();
  return out;
}

}  // namespace grader
