// load_traffic.cc: see load_traffic.h.
#include "grader/load/load_traffic.h"

#include <nlohmann/json.hpp>
#include <thread>

#include "grader/base/rng.h"
#include "grader/checks/check_run.h"

namespace grader {
namespace {

using std::chrono::milliseconds;

// The mixed client's draw per request (phases 1 and 2); the rest are new transfers. A retry needs a
// completed key, so a client's first request is always new.
constexpr int kRetryPercent = 30;
constexpr int kSimultaneousPercent = 10;
// Amounts stay tiny beside the opening balances (load.cc), so no transfer is refused for funds.
constexpr std::int64_t kMaxAmount = 500;
// Slowloris: 4 bytes a second, as in the issue's measurement. The head never ends: 4 KiB of a header
// value at 4 B/s would take 17 minutes, far beyond any phase.
constexpr milliseconds kSlowByteEvery{250};
constexpr std::size_t kSlowHeaderBytes = 4096;
// How often an idle connection looks whether the server has closed it.
constexpr milliseconds kIdlePoll{100};
// How long a client waits before asking again when it got no answer or a 409 (settle_key).
constexpr milliseconds kSettleBackoff{50};
// Violations kept with their text per client; the rest are only counted.
constexpr std::size_t kKeptViolations = 3;

double ms_between(std::int64_t from_ns, std::int64_t to_ns) { return static_cast<double>(to_ns - from_ns) / 1e6; }

milliseconds left_until(LoadClock::time_point t) {
  return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(t - LoadClock::now()));
}

bool replayed(const HttpResponse& r) { return r.header("Idempotent-Replayed").value_or("") == "true"; }

std::string status_label(const std::optional<HttpResponse>& r) {
  if (!r) return "no answer";
  if (r->status == 201) return replayed(*r) ? "201 replay" : "201";
  if (r->status == 409) return problem_type_of(*r) == "request-in-progress" ? "409 in-progress" : "409 other";
  return std::to_string(r->status);
}

std::string shown(const std::string& body) { return body.size() > 160 ? body.substr(0, 160) + "..." : body; }

HttpRequest transfer_request(const LoadKey& key, bool keep_alive) {
  HttpRequest r{"POST", "/transfers",
                {{"Authorization", "Bearer " + key.token},
                 {"Content-Type", "application/json"},
                 {"Idempotency-Key", "\"" + key.key + "\""}},
                key.body};
  r.keep_alive = keep_alive;
  return r;
}

// A fresh key from this client's account to another account of the bank.
LoadKey new_key(const LoadBank& bank, const std::string& client, int index, int n, Rng& rng) {
  const auto count = static_cast<std::int64_t>(bank.accounts.size());
  const LoadAccount& from = bank.accounts[static_cast<std::size_t>(index) % bank.accounts.size()];
  const LoadAccount& to =
      bank.accounts[static_cast<std::size_t>((index + rng.between(1, count - 1)) % count)];
  LoadKey k;
  const std::string id = client + "." + std::to_string(index) + "." + std::to_string(n);
  k.key = "load-" + bank.nonce + "-" + id;
  k.memo = "load #" + bank.nonce + "." + id;
  k.token = from.token;
  k.from = from.id;
  k.to = to.id;
  k.amount = rng.between(1, kMaxAmount);
  k.body = nlohmann::json{{"from_account", k.from}, {"to_account", k.to}, {"amount", k.amount},
                          {"currency", "USD"},      {"memo", k.memo}}
               .dump();
  return k;
}

void note_violation(ClientLog& log, const LoadKey& key, const std::string& what,
                    const std::optional<HttpResponse>& got, const std::string& error) {
  if (log.violations.size() < kKeptViolations)
    log.violations.push_back(what + " (key " + key.key + "): got " + status_label(got) +
                             (got ? " " + shown(got->body) : " (" + error + ")"));
  ++log.violation_count;
}

void note_answer(ClientLog& log, const std::optional<HttpResponse>& got, double wait_ms) {
  ++log.requests;
  ++log.statuses[status_label(got)];
  if (wait_ms > log.longest_wait_ms) log.longest_wait_ms = wait_ms, log.longest_wait_answered = got.has_value();
  if (!got) return;
  ++log.answers;
  log.latencies_ms.push_back(wait_ms);
}

// A new key must run: 201, not a replay.
bool judge_new(ClientLog& log, LoadKey& key, const std::optional<HttpResponse>& got, const std::string& error) {
  if (got && got->status == 201 && !replayed(*got)) {
    key.answer = got->body;
    return true;
  }
  note_violation(log, key, "a new key", got, error);
  return false;
}

// A retry of a completed key must be its first answer again.
void judge_retry(ClientLog& log, const LoadKey& key, const std::optional<HttpResponse>& got,
                 const std::string& error) {
  if (got && got->status == 201 && replayed(*got) && got->body == *key.answer) return;
  note_violation(log, key, "a retry of a completed key (expected its 201 replayed, byte for byte)", got, error);
}

// Two copies sent at once: one runs; the other waits its turn (409) or gets the same answer replayed.
bool judge_simultaneous(ClientLog& log, LoadKey& key, const std::optional<HttpResponse> (&got)[2],
                        const std::string (&error)[2]) {
  auto ran = [](const std::optional<HttpResponse>& g) { return g && g->status == 201 && !replayed(*g); };
  const int runs = ran(got[0]) + ran(got[1]);
  if (runs > 1) note_violation(log, key, "both of two copies sent at once ran", got[1], error[1]);
  for (const auto& g : got)
    if (ran(g)) key.answer = g->body;
  for (const auto& g : got)
    if (!key.answer && g && g->status == 201) key.answer = g->body;  // only the replay came back
  for (int i = 0; i < 2; ++i) {
    const auto& g = got[i];
    const bool other_unanswered = !got[1 - i];
    if (ran(g) || (g && g->status == 201 && replayed(*g) && g->body == *key.answer) ||
        (g && g->status == 409 && problem_type_of(*g) == "request-in-progress" && (runs == 1 || other_unanswered)))
      continue;
    note_violation(log, key, "a copy sent at once (expected 201, 409 request-in-progress or the 201 replayed)", g,
                   error[i]);
  }
  return key.answer.has_value();
}

// A client's keep-alive connection. A connection the server closed while it was idle is replaced before
// sending: nothing had been sent on it, so that is not a retry. A server may also close an idle connection
// just as a request goes out on it (both sides act at once); a request that then fails on a reused
// connection before any byte of an answer came is sent once more on a new one, as HTTP clients do for a
// request that is safe to repeat (Go's net/http counts a POST with an Idempotency-Key as one). The
// client counts these in ClientLog::sent_again.
class KeptConnection {
 public:
  explicit KeptConnection(Address to, ClientLog& log) : to_(std::move(to)), log_(log) {}

  bool send(const HttpRequest& request, std::string* error) {
    wire_ = request.to_wire(to_);
    reused_ = connection_ && !connection_->unusable();
    if (!reused_) connection_ = Connection::open_patiently(to_, kConnectPatience, error);
    if (connection_ && connection_->send_all(wire_, error)) return true;
    connection_.reset();
    return reused_ && send_again(error);
  }

  std::optional<HttpResponse> read(LoadClock::time_point until, std::string* error) {
    bool timed_out = false;
    auto got = connection_->read_response(left_until(until), error, &timed_out);
    if (!got && reused_ && !timed_out && send_again(error))
      got = connection_->read_response(left_until(until), error, &timed_out);
    if (!got || got->header("Connection").value_or("") == "close") connection_.reset();
    return got;
  }

 private:
  bool send_again(std::string* error) {
    ++log_.sent_again;
    reused_ = false;
    error->clear();
    connection_ = Connection::open_patiently(to_, kConnectPatience, error);
    if (connection_ && connection_->send_all(wire_, error)) return true;
    connection_.reset();
    return false;
  }

  Address to_;
  ClientLog& log_;
  std::optional<Connection> connection_;
  std::string wire_;    // the request last sent, for sending it again
  bool reused_ = false;  // the request went out on a connection that had served an earlier one
};

}  // namespace

void ClientLog::merge(ClientLog&& other) {
  requests += other.requests;
  answers += other.answers;
  latencies_ms.insert(latencies_ms.end(), other.latencies_ms.begin(), other.latencies_ms.end());
  if (other.longest_wait_ms > longest_wait_ms)
    longest_wait_ms = other.longest_wait_ms, longest_wait_answered = other.longest_wait_answered;
  for (const auto& [label, n] : other.statuses) statuses[label] += n;
  for (auto& v : other.violations)
    if (violations.size() < kKeptViolations) violations.push_back(std::move(v));
  violation_count += other.violation_count;
  sent_again += other.sent_again;
  for (auto& k : other.keys) keys.push_back(std::move(k));
}

ClientLog run_mixed_client(const LoadBank& bank, int index, const LoadPlan& plan) {
  ClientLog log;
  Rng rng = Rng::for_check(static_cast<std::uint64_t>(index), "load." + plan.phase);
  KeptConnection kept(bank.server, log);
  std::vector<std::size_t> completed;  // indexes into log.keys of keys answered 201
  for (int n = 0; LoadClock::now() < plan.stop_sending; ++n) {
    const int roll = static_cast<int>(rng.between(1, 100));
    std::string error;
    if (roll <= kRetryPercent && !completed.empty()) {
      // Is the completed key answered with its first answer, byte for byte?
      const auto pick = rng.between(0, static_cast<std::int64_t>(completed.size()) - 1);
      const LoadKey& key = log.keys[completed[static_cast<std::size_t>(pick)]];
      const std::int64_t sent = monotonic_ns();
      std::optional<HttpResponse> got;
      if (kept.send(transfer_request(key, true), &error)) got = kept.read(plan.stop_waiting(), &error);
      note_answer(log, got, ms_between(sent, monotonic_ns()));
      judge_retry(log, key, got, error);
    } else if (roll <= kRetryPercent + kSimultaneousPercent) {
      // The same new key on this connection and on a second one, sent together: does it run once?
      log.keys.push_back(new_key(bank, plan.phase, index, n, rng));
      LoadKey& key = log.keys.back();
      std::optional<HttpResponse> got[2];
      std::string errors[2];
      auto second = Connection::open_patiently(bank.server, kConnectPatience, &errors[1]);
      const std::int64_t sent = monotonic_ns();
      const bool first_out = kept.send(transfer_request(key, true), &errors[0]);
      const bool second_out = second && second->send_all(transfer_request(key, false).to_wire(bank.server), &errors[1]);
      if (first_out) got[0] = kept.read(plan.stop_waiting(), &errors[0]);
      note_answer(log, got[0], ms_between(sent, monotonic_ns()));
      if (second_out) got[1] = second->read_response(left_until(plan.stop_waiting()), &errors[1]);
      note_answer(log, got[1], ms_between(sent, monotonic_ns()));
      if (judge_simultaneous(log, key, got, errors)) completed.push_back(log.keys.size() - 1);
    } else {
      // A new key: does it run?
      log.keys.push_back(new_key(bank, plan.phase, index, n, rng));
      LoadKey& key = log.keys.back();
      const std::int64_t sent = monotonic_ns();
      std::optional<HttpResponse> got;
      if (kept.send(transfer_request(key, true), &error)) got = kept.read(plan.stop_waiting(), &error);
      note_answer(log, got, ms_between(sent, monotonic_ns()));
      if (judge_new(log, key, got, error)) completed.push_back(log.keys.size() - 1);
    }
  }
  return log;
}

ClientLog run_healthy_client(const LoadBank& bank, int index, const LoadPlan& plan) {
  ClientLog log;
  Rng rng = Rng::for_check(static_cast<std::uint64_t>(index), "load." + plan.phase);
  for (int n = 0; LoadClock::now() < plan.stop_sending; ++n) {
    log.keys.push_back(new_key(bank, plan.phase, index, n, rng));
    LoadKey& key = log.keys.back();
    const std::int64_t started = monotonic_ns();
    Exchange x = exchange(bank.server, transfer_request(key, false), kLoadPatience);
    note_answer(log, x.response, ms_between(started, x.done_ns));
    judge_new(log, key, x.response, x.error);
  }
  return log;
}

SlowLog run_slow_socket(const LoadBank& bank, const LoadPlan& plan, std::latch& started) {
  const std::string head = "POST /transfers HTTP/1.1\r\nHost: " + bank.server.authority() +
                           "\r\nAuthorization: Bearer " + bank.accounts.front().token +
                           "\r\nX-Slow-Client: " + std::string(kSlowHeaderBytes, 'z');
  SlowLog log;
  bool counted = false;
  std::optional<Connection> connection;
  std::size_t at = 0;  // the next byte of the head to send
  while (LoadClock::now() < plan.stop_sending) {
    std::string error;
    if (!connection) {
      connection = Connection::open_patiently(bank.server, kConnectPatience, &error);
      at = 0;
    }
    if (connection && connection->send_all(std::string_view(head).substr(at, 1), &error)) {
      ++at, ++log.bytes_sent;
      if (!counted) started.count_down(), counted = true;
    }
    std::this_thread::sleep_for(kSlowByteEvery);
    // Did the server hang up on us (or answer, a 408 say)? Then begin again, as an attacker would.
    if (connection && connection->unusable()) connection.reset(), ++log.closed_by_server;
  }
  if (!counted) started.count_down();  // never connected: do not hold up the phase
  return log;
}

IdleLog run_idle_connection(const LoadBank& bank, int index, const LoadPlan& plan, std::latch& started) {
  const LoadAccount& account = bank.accounts[static_cast<std::size_t>(index) % bank.accounts.size()];
  HttpRequest ask{"GET", "/accounts/" + std::to_string(account.id), {{"Authorization", "Bearer " + account.token}}, ""};
  ask.keep_alive = true;
  IdleLog log;
  bool counted = false;
  while (LoadClock::now() < plan.stop_sending) {
    std::string error;
    auto connection = Connection::open_patiently(bank.server, kConnectPatience, &error);
    if (!counted) started.count_down(), counted = true;
    if (!connection) {
      std::this_thread::sleep_for(kIdlePoll);
      continue;
    }
    ++log.requests;
    if (connection->send_all(ask.to_wire(bank.server), &error) &&
        connection->read_response(left_until(plan.stop_sending), &error))
      ++log.answers;
    // Now silence, until the server closes the connection or the phase ends.
    while (LoadClock::now() < plan.stop_sending && !connection->unusable()) std::this_thread::sleep_for(kIdlePoll);
    if (LoadClock::now() < plan.stop_sending) ++log.closed_by_server;
  }
  if (!counted) started.count_down();
  return log;
}

std::optional<std::string> settle_key(const Address& server, LoadKey& key, milliseconds patience) {
  const auto deadline = LoadClock::now() + patience;
  std::string last = "no answer";
  while (LoadClock::now() < deadline) {
    Exchange x = exchange(server, transfer_request(key, false), kLoadPatience);
    last = status_label(x.response) + (x.response ? " " + shown(x.response->body) : " (" + x.error + ")");
    if (x.response && x.response->status == 201) {
      if (key.answer && *key.answer != x.response->body)
        return "key " + key.key + ": its retry answered other bytes than its first 201: " + shown(x.response->body);
      key.answer = x.response->body;
      return std::nullopt;
    }
    // In progress, or no answer: a client asks again a little later; anything else is final.
    if (x.response && !(x.response->status == 409 && problem_type_of(*x.response) == "request-in-progress"))
      return "key " + key.key + ": its retry after no answer got " + last;
    std::this_thread::sleep_for(kSettleBackoff);
  }
  return "key " + key.key + ": no 201 within " + std::to_string(patience.count() / 1000) +
         " s of retries (last: " + last + ")";
}

}  // namespace grader
