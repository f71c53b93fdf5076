// runner.cc: a history against a fresh server, judged request by request (runner.h).
#include "grader/explore/runner.h"

#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "grader/wire/target.h"
#include "grader/wire/wire.h"

namespace grader::explore {

namespace {

// The answer as a line of the transcript: the status, the body (cut), and the headers the contract fixes.
constexpr std::size_t kBodyShown = 160;

std::string answer_words(const model::Answer& a, const std::string& error) {
  if (!a.answered) return "no answer (" + error + ")";
  std::string out = std::to_string(a.status);
  for (const char* name : {"Retry-After", "Idempotent-Replayed"})
    if (auto v = model::header_value(a.headers, name)) out += " " + std::string(name) + ": " + *v;
  std::string body = a.body.size() > kBodyShown ? a.body.substr(0, kBodyShown) + "..." : a.body;
  return out + " " + body;
}

// One run: the server, the model judging it, the ids and tokens its setup handed out, and the transcript.
class Session {
 public:
  Session(Target& target, int stage, Run& run, Recorder* recorder)
      : target_(target),
        model_(stage, model::Settings{.admin_token = target.admin_token(), .lab_controls = true,
                                      .lease_seconds = target.facts().lease_seconds,
                                      .key_ttl_seconds = target.facts().key_ttl_seconds}),
        run_(run),
        recorder_(recorder),
        start_ns_(monotonic_ns()) {}

  model::Request request(const std::string& method, const std::string& path, const std::string& token,
                         const std::string& body, std::vector<model::Header> extra = {}) const {
    model::Request r{.method = method, .path = path, .headers = {}, .body = body, .real_ms = 0};
    if (!body.empty()) r.headers.push_back({"Content-Type", "application/json"});
    r.headers.push_back({"Authorization", "Bearer " + token});
    for (model::Header& h : extra) r.headers.push_back(std::move(h));
    return r;
  }

  // Sends it now (its real_ms set) and returns the answer, or none; *op is the recorder's op for it (step i of
  // the history; kSetup is not recorded).
  model::Answer send(int step, model::Request& r, std::string* error, std::int64_t* op, const Address& to) const {
    r.real_ms = (monotonic_ns() - start_ns_) / 1'000'000;
    HttpRequest wire{.method = r.method, .target = r.path, .headers = {}, .body = r.body, .keep_alive = false};
    for (const model::Header& h : r.headers) wire.headers.emplace_back(h.name, h.value);
    const bool recorded = recorder_ && step != kSetup;
    *op = recorded ? recorder_->sent(step, wire) : 0;
    Exchange x = exchange(to, wire);
    if (recorded) recorder_->answered(*op, x);
    if (!x.response) {
      *error = x.error;
      return model::Answer::none();
    }
    model::Answer a{.answered = true, .status = x.response->status, .headers = {}, .body = x.response->body};
    for (auto& [name, value] : x.response->headers) a.headers.push_back({name, value});
    return a;
  }

  // Sent, answered and judged; false when the model refused it (the run stops).
  bool judged(int step, const std::string& role, model::Request r, model::Answer* out = nullptr) {
    std::string error;
    std::int64_t op = 0;
    model::Answer a = send(step, r, &error, &op, target_.address());
    if (out) *out = a;
    return record(step, role, model_.judge(r, a), a, error, op);
  }

  bool record(int step, const std::string& role, const model::Judgement& j, const model::Answer& a,
              const std::string& error, std::int64_t op) {
    run_.exchanges.push_back(
        {.step = step, .role = role, .answer = answer_words(a, error), .refused = !j.allowed, .op = op});
    run_.capped = run_.capped || j.capped;
    if (!j.allowed) {
      run_.refused = true;
      run_.refusal = j;
    }
    return j.allowed;
  }

  // The bank of history.h: two clients, three accounts, their ids and tokens as the server chose them.
  bool set_up() {
    const std::string admin = target_.admin_token();
    for (const char* name : kClientNames) {
      model::Answer a;
      if (!judged(kSetup, "", request("POST", "/admin/clients", admin, nlohmann::json{{"name", name}}.dump()), &a)) return false;
      auto doc = nlohmann::json::parse(a.body);
      clients_.push_back({doc.at("id").get<std::int64_t>(), doc.at("token").get<std::string>()});
    }
    for (const AccountSetup& acc : kAccounts) {
      model::Answer a;
      auto body = nlohmann::json{{"client_id", clients_[static_cast<std::size_t>(acc.client)].id},
                                 {"balance", acc.balance}, {"currency", "USD"}};
      if (!judged(kSetup, "", request("POST", "/admin/accounts", admin, body.dump()), &a)) return false;
      accounts_.push_back(nlohmann::json::parse(a.body).at("id").get<std::int64_t>());
    }
    return true;
  }

  model::Request money(const Intent& in, std::vector<model::Header> extra = {}) const {
    const std::string from = std::to_string(accounts_[static_cast<std::size_t>(in.from)]);
    const std::string to = std::to_string(accounts_[static_cast<std::size_t>(in.to)]);
    const std::string amount = std::to_string(in.amount);
    // The same number written as an exponent (amounts are whole hundreds; 100 * 1.5 would not be exact).
    const std::string spelled = in.amount % 100 == 0 ? std::to_string(in.amount / 100) + "e2" : amount + ".0";
    std::string body;
    if (in.payout) {
      const std::string destination = R"("DE89370400440532013000")";
      body = in.respelled ? R"({ "memo" : "explore", "destination" : )" + destination + R"(, "currency" : "USD", "amount":)" +
                                spelled + R"(, "from_account" : )" + from + " }"
                          : R"({"from_account":)" + from + R"(,"amount":)" + amount + R"(,"currency":"USD","destination":)" +
                                destination + R"(,"memo":"explore"})";
    } else {
      body = in.respelled ? R"({ "memo" : "explore", "currency" : "USD", "amount":)" + spelled + R"(, "to_account" : )" + to +
                                R"(, "from_account" : )" + from + " }"
                          : R"({"from_account":)" + from + R"(,"to_account":)" + to + R"(,"amount":)" + amount +
                                R"(,"currency":"USD","memo":"explore"})";
    }
    extra.insert(extra.begin(), {"Idempotency-Key", "\"" + in.key + "\""});
    return request("POST", in.payout ? "/payouts" : "/transfers", clients_[static_cast<std::size_t>(in.client)].token, body,
                   std::move(extra));
  }

  model::Request clock(std::int64_t advance_ms) const {
    return request("POST", "/admin/clock", target_.admin_token(), R"({"advance_ms":)" + std::to_string(advance_ms) + "}");
  }

  model::Request balance(int account, int asker) const {
    return request("GET", "/accounts/" + std::to_string(accounts_[static_cast<std::size_t>(account)]),
                   clients_[static_cast<std::size_t>(asker)].token, "");
  }

  bool step(int i, const Step& s) {
    switch (s.kind) {
      case StepKind::Send: return judged(i, "", money(s.intent));
      case StepKind::Balance: return judged(i, "", balance(s.account, s.asker));
      case StepKind::Clock: return clock_step(i, "", s.advance_ms);
      case StepKind::Crash: {
        model::Answer a;
        bool allowed = judged(i, "", money(s.intent, {{"Lab-Crash", s.crash_point}}), &a);
        if (!a.answered) {  // it died where it was told to: started again on the same database
          if (recorder_) recorder_->fault("lab-crash", s.crash_point);
          target_.restart_after_crash();
          model_.restart();
          if (recorder_) recorder_->fault("restart", "same database, " + target_.address().authority());
        }
        return allowed;
      }
      case StepKind::Busy: return judged(i, "", money(s.intent, {{"Lab-Fail", "busy"}}));
      case StepKind::InFlight: return in_flight(i, s);
    }
    return true;
  }

  // The first request sleeps at the server; the second (and the clock, for a takeover) is sent meanwhile.
  bool in_flight(int i, const Step& s) {
    constexpr int kFirst = 1;
    model::Request first = money(s.intent, {{"Lab-Delay-Ms", std::to_string(kInFlightDelayMs)}});
    std::string first_error;
    std::int64_t first_op = 0;
    const Address to = target_.address();
    first.real_ms = (monotonic_ns() - start_ns_) / 1'000'000;
    model_.send(kFirst, first);
    auto answer = std::async(std::launch::async, [&] { return send(i, first, &first_error, &first_op, to); });
    std::this_thread::sleep_for(std::chrono::milliseconds(kRepeatAfterMs));
    bool allowed = true;
    if (s.takeover) allowed = clock_step(i, "clock", lease_ms() + 5'000);
    if (allowed) allowed = judged(i, "second", money(s.intent));
    model::Answer a = answer.get();
    if (!allowed) return false;
    return record(i, "first", model_.answer(kFirst, a), a, first_error, first_op);
  }

  // POST /admin/clock, judged; the recorder also draws it as a jump of the clock across the timeline.
  bool clock_step(int i, const std::string& role, std::int64_t advance_ms) {
    if (recorder_) recorder_->fault("clock", "advance " + std::to_string(advance_ms) + " ms");
    return judged(i, role, clock(advance_ms));
  }

  std::int64_t lease_ms() const { return target_.facts().lease_seconds * 1000; }

  bool balances_at_end() {
    for (int acc = 0; acc < kAccountCount; ++acc)
      if (!judged(kBalancesAtEnd, "", balance(acc, kAccounts[acc].client))) return false;
    return true;
  }

 private:
  struct ClientIds {
    std::int64_t id;
    std::string token;
  };
  Target& target_;
  model::Ladder model_;  // the model of the stage, and the ones below once it refuses (ladder.h)
  Run& run_;
  Recorder* recorder_;  // may be null: nothing recorded
  std::int64_t start_ns_;
  std::vector<ClientIds> clients_;
  std::vector<std::int64_t> accounts_;
};

}  // namespace

Run run_history(const StartServer& start, int stage, const History& history, Recorder* recorder) {
  Run run;
  std::unique_ptr<Target> target;
  try {
    target = start();
    Session session(*target, stage, run, recorder);
    bool ok = session.set_up();
    for (std::size_t i = 0; ok && i < history.size(); ++i) ok = session.step(static_cast<int>(i), history[i]);
    if (ok) session.balances_at_end();
  } catch (const StartError& e) {
    run.error = e.what();
  } catch (const nlohmann::json::exception& e) {  // a setup answer the model allowed but without an id: no run
    run.error = std::string("an admin answer could not be read: ") + e.what();
  }
  if (target) target->stop();
  return run;
}

}  // namespace grader::explore
