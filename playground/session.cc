// session.cc: see session.h. docs/teach/the-playground.md "The playground".
#include "playground/session.h"

#include <map>
#include <sstream>

#include "grader/base/stage_binaries.h"
#include "grader/demo/demo_scene.h"
#include "playground/database_view.h"
#include "playground/violations.h"

namespace playground {
namespace {

using namespace std::chrono_literals;
using grader::DemoRole;

// Thrown on the teller thread when the session ends while a story waits for the learner: it unwinds the
// story, and the Scene stops its server. Not a std::exception, so no story's own catch takes it.
struct SessionEnded {};

// What free mode's "drop the reply" stages: the server works longer than the client waits.
constexpr const char* kDroppedRequestDelayMs = "600";
constexpr std::chrono::milliseconds kClientPatience{200};
// simultaneous-retries on its fixing stage, when no flawed tour has said how many bursts it needed.
constexpr int kFixingBursts = 10;

std::string_view kind_name(grader::LineKind kind) {
  switch (kind) {
    case grader::LineKind::Step: return "step";
    case grader::LineKind::Note: return "note";
    case grader::LineKind::Damage: return "damage";
    case grader::LineKind::Good: return "good";
  }
  return "note";
}

std::string command_for(const grader::DemoStand& stand, const std::string& bin_dir, const char* flags) {
  auto path = grader::find_stage_binary(stand.binary, bin_dir);
  if (!path) throw std::runtime_error(stand.binary + " is not built; run `make build`");
  return grader::stage_command(*path, flags);
}

bool plain_key_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == ':';
}

}  // namespace

nlohmann::json stand_json(const grader::DemoStand& stand) { return {{"binary", stand.binary}, {"label", stand.label}}; }

std::string invalid_order(const SendOrder& o) {
  if (o.client != "alice" && o.client != "bob") return "client must be \"alice\" or \"bob\"";
  if (o.key.size() > 64) return "key: at most 64 characters";
  for (char c : o.key)
    if (!plain_key_character(c)) return "key: letters, digits and - _ . : only (the playground writes it into \"...\")";
  if (o.amount < 1 || o.amount > 1'000'000'000) return "amount: 1 to 1,000,000,000 cents";
  if (o.copies < 1 || o.copies > 16) return "copies: 1 to 16";
  if (!o.crash.empty() && o.crash != "before-money" && o.crash != "after-money")
    return "crash: \"\", \"before-money\" or \"after-money\"";
  if (o.delay_ms < 0 || o.delay_ms > 5'000) return "delay_ms: 0 to 5000";
  if (o.drop && o.copies > 1) return "drop: one copy at a time";
  return "";
}

// --- Starting and ending ---

Session::Session(const grader::DemoScenario* scenario, DemoRole role, grader::DemoStand stand, SessionOptions options)
    : scenario_(scenario),
      role_(role),
      stand_(stand),
      options_(std::move(options)),
      check_(scenario ? grader::demo_check_name(*scenario, role) : "free/" + stand.binary) {
  allowed_step_ = auto_until_ = options_.step;
  teller_ = std::jthread([this] { scenario_ ? tell_story() : serve_free_mode(); });
}

std::unique_ptr<Session> Session::tour(const grader::DemoScenario& scenario, DemoRole role, SessionOptions options) {
  const grader::DemoStand& stand = role == DemoRole::Fixing && scenario.fixing ? *scenario.fixing : scenario.flawed;
  if (role == DemoRole::Fixing && !scenario.fixing) role = DemoRole::Only;
  if (role == DemoRole::Flawed && !scenario.fixing) role = DemoRole::Only;
  return std::unique_ptr<Session>(new Session(&scenario, role, stand, std::move(options)));
}

std::unique_ptr<Session> Session::free(const grader::DemoStand& stand, SessionOptions options) {
  return std::unique_ptr<Session>(new Session(nullptr, DemoRole::Only, stand, std::move(options)));
}

Session::~Session() {
  {
    std::lock_guard lock(mutex_);
    ending_ = true;
  }
  changed_.notify_all();
  teller_ = {};  // joins: the story unwinds (SessionEnded), the Scene stops the server
}

void Session::throw_if_ended() const {
  if (ending_) throw SessionEnded{};
}

void Session::wait_until_ended() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return ending_; });
}

// The scene tells this session (SceneObserver) and records into its history; no terminal.
grader::Narration Session::narration() {
  grader::Narration n;
  n.observer = this;
  n.history = &history_;
  n.check = check_;
  return n;
}

// --- The tour ---

void Session::tell_story() {
  try {
    grader::Scene scene(narration(), stand_.label, command_for(stand_, options_.bin_dir, scenario_->server_flags));
    {
      std::lock_guard lock(mutex_);
      database_path_ = scene.target().database_path();
    }
    grader::Outcome first = options_.first_telling.value_or(grader::Outcome{.flaw_shown = false, .what = "", .rounds = kFixingBursts});
    grader::Outcome o = scenario_->story(scene, role_ == DemoRole::Fixing ? &first : nullptr);
    {
      std::lock_guard lock(mutex_);
      outcome_ = o;
      verdict_ = grader::demo_verdict(stand_, role_, o).line;
      waiting_ = "finished";
    }
    changed_.notify_all();
    wait_until_ended();  // the server stays up, so the key table of the end stays on the page
  } catch (const SessionEnded&) {
  } catch (const std::exception& e) {  // the server did not start, or did not answer as a server
    std::lock_guard lock(mutex_);
    error_ = e.what();
    waiting_ = "finished";
  }
}

void Session::before_step(int number) {
  std::unique_lock lock(mutex_);
  throw_if_ended();
  if (scenario_ && number > allowed_step_) {  // free mode's steps are the learner's own actions: never held
    waiting_ = "step";
    changed_.notify_all();
    changed_.wait(lock, [&] { return ending_ || number <= allowed_step_; });
    throw_if_ended();
  }
  current_step_ = number;
  waiting_ = "busy";
}

void Session::said(grader::LineKind kind, const std::string& text) {
  std::lock_guard lock(mutex_);
  throw_if_ended();
  narration_.push_back({current_step_, kind, text});
}

// The story is about to send a repeat. In a step the learner asked for, it waits for a prediction; steps
// told on the way to a shared URL's step, and free mode (the page asks before it sends), do not wait.
void Session::before_repeat(const grader::HttpRequest& request) {
  std::unique_lock lock(mutex_);
  throw_if_ended();
  if (!scenario_ || current_step_ <= auto_until_) return;
  prediction_request_ = request;
  prediction_.clear();
  waiting_ = "prediction";
  changed_.notify_all();
  changed_.wait(lock, [&] { return ending_ || !prediction_.empty(); });
  throw_if_ended();
  prediction_request_.reset();
  waiting_ = "busy";
}

void Session::next() {
  {
    std::lock_guard lock(mutex_);
    allowed_step_ = std::max(allowed_step_, current_step_ + 1);
  }
  changed_.notify_all();
}

bool Session::predict(const std::string& choice) {
  {
    std::lock_guard lock(mutex_);
    if (waiting_ != "prediction") return false;
    prediction_ = choice;
    narration_.push_back({current_step_, grader::LineKind::Note, "(you predicted: " + choice + ")"});
  }
  changed_.notify_all();
  return true;
}

// --- Free mode ---

void Session::serve_free_mode() {
  try {
    grader::Scene scene(narration(), stand_.label, command_for(stand_, options_.bin_dir, ""));
    // Each client has a paying account and a receiving one; bob exists to try a key alice used.
    std::map<std::string, grader::Scene::ClientWithTwoAccounts> clients;
    clients.emplace("alice", scene.client_with_two_accounts("alice", 10'000, "USD"));
    clients.emplace("bob", scene.client_with_two_accounts("bob", 5'000, "USD"));
    {
      std::lock_guard lock(mutex_);
      database_path_ = scene.target().database_path();
      waiting_ = "ready";
    }
    changed_.notify_all();
    for (;;) {
      Action action;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return ending_ || !actions_.empty(); });
        throw_if_ended();
        action = std::move(actions_.front());
        actions_.pop_front();
        waiting_ = "busy";
        current_step_ = actions_done_ + 1;
      }
      switch (action.kind) {
        case Action::Kind::Send: {
          const SendOrder& o = action.order;
          const auto& who = clients.at(o.client);
          nlohmann::json body = {{"from_account", who.from.id}, {"to_account", who.to.id}, {"amount", o.amount},
                                 {"currency", "USD"}, {"memo", o.key.empty() ? "no key" : o.key}};
          grader::HttpRequest request = scene.transfer(who.client, o.key, body.dump());
          if (o.key.empty()) std::erase_if(request.headers, [](const auto& h) { return h.first == "Idempotency-Key"; });
          if (o.delay_ms > 0) request.headers.emplace_back("Lab-Delay-Ms", std::to_string(o.delay_ms));
          else if (o.drop) request.headers.emplace_back("Lab-Delay-Ms", kDroppedRequestDelayMs);
          if (!o.crash.empty()) request.headers.emplace_back("Lab-Crash", o.crash);
          scene.step(o.client + " sends " + grader::format_money(o.amount, "USD") +
                     (o.key.empty() ? " without a key" : " with key \"" + o.key + "\"") +
                     (o.copies > 1 ? ", " + std::to_string(o.copies) + " copies at once" : "") +
                     (o.drop ? ", and gives up after " + std::to_string(kClientPatience.count()) + " ms" : "") +
                     (o.crash.empty() ? "" : "; the server crashes " + o.crash));
          if (o.copies > 1) {
            auto answers = scene.send_together(request, o.copies);
            std::map<std::string, int> statuses;
            for (const auto& x : answers) statuses[x.response ? grader::status_line(x.response->status) : "no response"]++;
            for (const auto& [status, n] : statuses) scene.note("< " + std::to_string(n) + " x " + status);
          } else if (o.drop) {
            scene.send_and_lose(request, kClientPatience);
          } else {
            scene.send(request);
          }
          break;
        }
        case Action::Kind::Restart:
          scene.step("the server is killed (SIGKILL) and started again on the same database");
          scene.target().sigkill();
          scene.restart_after_crash();
          break;
        case Action::Kind::Clock:
          scene.step("the lab clock moves " + std::to_string(action.seconds) + " s on");
          scene.advance_clock(std::chrono::seconds(action.seconds));
          break;
      }
      {
        std::lock_guard lock(mutex_);
        ++actions_done_;
        if (actions_.empty()) waiting_ = "ready";
      }
      changed_.notify_all();
    }
  } catch (const SessionEnded&) {
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    error_ = e.what();
    waiting_ = "finished";
  }
}

void Session::post(Action action) {
  {
    std::lock_guard lock(mutex_);
    actions_.push_back(std::move(action));
    waiting_ = "busy";
  }
  changed_.notify_all();
}

void Session::send(const SendOrder& order) { post({Action::Kind::Send, order, 0}); }
void Session::restart() { post({Action::Kind::Restart, {}, 0}); }
void Session::advance_clock(int seconds) { post({Action::Kind::Clock, {}, seconds}); }

// --- What the page shows ---

int Session::step() const {
  std::lock_guard lock(mutex_);
  return scenario_ ? current_step_ : actions_done_;
}

std::optional<grader::Outcome> Session::outcome() const {
  std::lock_guard lock(mutex_);
  return outcome_;
}

nlohmann::json Session::state() const {
  nlohmann::json st;
  std::string db;
  {
    std::lock_guard lock(mutex_);
    const bool tour = scenario_ != nullptr;
    st["session"] = {
        {"mode", tour ? "tour" : "free"},
        {"stand", stand_json(stand_)},
        {"scenario", tour ? nlohmann::json(scenario_->name) : nlohmann::json()},
        {"role", tour ? nlohmann::json(role_ == DemoRole::Fixing ? "fixing" : "flawed") : nlohmann::json()},
        {"seed", options_.seed},
        {"step", tour ? current_step_ : actions_done_},
        {"waiting", waiting_},
        {"verdict", verdict_.empty() ? nlohmann::json() : nlohmann::json(verdict_)},
        {"error", error_.empty() ? nlohmann::json() : nlohmann::json(error_)}};
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& l : narration_) lines.push_back({{"step", l.step}, {"kind", kind_name(l.kind)}, {"text", l.text}});
    st["narration"] = std::move(lines);
    st["prediction"] = nullptr;
    if (prediction_request_) {
      std::string key;
      for (const auto& [name, value] : prediction_request_->headers)
        if (name == "Idempotency-Key") key = value;
      st["prediction"] = {{"op_key", key},
                          {"request", {{"method", prediction_request_->method},
                                       {"target", prediction_request_->target},
                                       {"body", prediction_request_->body}}}};
    }
    db = database_path_;
  }
  const std::vector<grader::Event> history = history_.of_check(check_);
  const grader::History::Dropped dropped = history_.dropped();
  if (st["prediction"].is_object()) {  // what the key's earlier attempts got: the learner's evidence
    nlohmann::json previous = nlohmann::json::array();
    const std::string key = st["prediction"]["op_key"];
    for (const auto& e : history)
      if (e.key == key && e.type != grader::EventType::Invoke && e.type != grader::EventType::Ended)
        previous.push_back({{"op", e.op}, {"status", e.response ? nlohmann::json(e.response->status) : nlohmann::json()}});
    st["prediction"]["previous"] = std::move(previous);
  }
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : history) events.push_back(grader::History::to_json(e));
  st["history"] = std::move(events);
  st["history_dropped"] = dropped.events;  // the page says "N older events not shown"
  // How far the lab clock was moved ahead (POST /admin/clock): key retention counts on it (stage 6).
  TableView clock = db.empty() ? TableView{} : read_table(db, "lab_clock");
  st["clock_ms"] = !clock.rows.empty() && clock.rows[0].size() > 1 ? clock.rows[0][1] : nlohmann::json(0);
  for (const char* table : {"idempotency_keys", "ledger", "accounts"}) {
    const bool ledger = table == std::string("ledger");
    // The findings judge the kept attempts against their own entries: an attempt moves at most one, so the
    // newest kSessionEventsKept entries hold them all; the page shows fewer.
    TableView view = db.empty() ? TableView{} : read_table(db, table, ledger ? kSessionEventsKept : kTableRowsShown);
    if (ledger) {
      const auto marks = find_violations(history, view, dropped);
      nlohmann::json anomalies = nlohmann::json::array();
      for (const auto& m : marks)
        anomalies.push_back({{"op", m.op}, {"anomaly", m.anomaly}, {"text", m.text}, {"fixed_by", m.fixed_by}});
      st["anomalies"] = std::move(anomalies);
      st["timeline_svg"] = grader::timeline_svg(history, marks);
      if (view.rows.size() > kTableRowsShown) view.rows.erase(view.rows.begin(), view.rows.end() - kTableRowsShown);
    }
    st[table == std::string("idempotency_keys") ? "keys" : table] = to_json(view);
  }
  return st;
}

std::string Session::history_jsonl() const {
  std::ostringstream out;
  for (const auto& e : history_.of_check(check_))
    out << grader::History::to_json(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  return out.str();
}

}  // namespace playground
