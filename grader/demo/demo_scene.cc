// demo_scene.cc: see demo_scene.h. docs/teach/the-day.md "The day" (the show).
#include "grader/demo/demo_scene.h"

#include <iostream>
#include <latch>
#include <thread>

#include "grader/wire/server_process.h"

namespace grader {
namespace {

// How often wait_for_moves looks at the ledger while a lost request finishes on the server.
constexpr std::chrono::milliseconds kLedgerPoll{50};

std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out = n < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string format_money(std::int64_t amount, const std::string& currency) {
  // ISO 4217 gives KRW and JPY no minor unit, so their amounts are whole won and yen.
  if (currency == "KRW" || currency == "JPY") return grouped(amount) + " " + currency;
  std::string cents = std::to_string(amount % 100);
  if (cents.size() < 2) cents = "0" + cents;
  return grouped(amount / 100) + "." + cents + " " + currency;
}

std::string status_line(int status) {
  static const std::map<int, const char*> reasons = {
      {200, "OK"},        {201, "Created"},           {400, "Bad Request"}, {402, "Payment Required"},
      {404, "Not Found"}, {409, "Conflict"},          {422, "Unprocessable Content"},
      {500, "Internal Server Error"},                 {503, "Service Unavailable"}};
  auto it = reasons.find(status);
  return std::to_string(status) + (it == reasons.end() ? "" : std::string(" ") + it->second);
}

Scene::Scene(const Narration& narration, std::string label, const std::string& command)
    : narration_(narration),
      label_(std::move(label)),
      target_(Target::launch(command, facts_from_command(command))),
      api_(*target_) {
  if (narration_.history) in_flight_ = std::make_unique<InFlight>(*narration_.history);
  if (narration_.out)
    *narration_.out << narration_.bold(label_ + " is listening on http://" + target_->address().authority()) << "\n";
  if (narration_.observer)
    narration_.observer->said(LineKind::Note, label_ + " is listening on http://" + target_->address().authority());
}

Scene::~Scene() {
  in_flight_.reset();  // the lost requests' ends are recorded before the server goes
  target_->stop();
}

void Scene::step(const std::string& sentence) {
  if (narration_.observer) narration_.observer->before_step(steps_told_ + 1);
  if (narration_.step_by_step && narration_.out) {
    *narration_.out << narration_.dim("  (press Enter)") << std::flush;
    std::string ignored;
    std::getline(std::cin, ignored);  // at EOF (stdin not a terminal, nothing left) it returns at once
  }
  say(LineKind::Step, std::to_string(++steps_told_) + ". " + sentence);
}

void Scene::note(const std::string& line) { say(LineKind::Note, line); }
void Scene::damage(const std::string& line) { say(LineKind::Damage, line); }
void Scene::good(const std::string& line) { say(LineKind::Good, line); }

// The terminal gets the colour of the kind (a step is bold, after a blank line); an observer the plain text.
void Scene::say(LineKind kind, const std::string& text) {
  if (narration_.out) {
    const std::string shown = kind == LineKind::Step     ? "\n" + narration_.bold(text)
                              : kind == LineKind::Damage ? narration_.red(text)
                              : kind == LineKind::Good   ? narration_.green(text)
                                                         : text;
    *narration_.out << shown << "\n";
  }
  if (narration_.observer) narration_.observer->said(kind, text);
}

void Scene::request_line(const std::string& text) {
  if (narration_.out) *narration_.out << narration_.dim(text) << "\n";
  if (narration_.observer) narration_.observer->said(LineKind::Note, text);
}

ClientInfo Scene::client(const std::string& name) {
  ClientInfo c = api_.create_client(name);
  names_by_token_[c.token] = name;
  return c;
}

Account Scene::account(const ClientInfo& owner, std::int64_t balance, const std::string& currency) {
  AccountInfo info = api_.create_account(owner.id, balance, currency);
  owners_by_account_[info.id] = owner.name;
  return Account{info.id, balance, currency, owner.token};
}

Scene::ClientWithTwoAccounts Scene::client_with_two_accounts(const std::string& name, std::int64_t balance,
                                                            const std::string& currency) {
  ClientInfo owner = client(name);
  Account from = account(owner, balance, currency);
  Account to = account(owner, 0, currency);
  return {owner, from, to};
}

void Scene::show_balances(const std::string& when, const std::vector<Account>& accounts) {
  std::string line = "   balances " + when + ":";
  for (const auto& a : accounts) {
    AccountInfo now = api_.account(a.id, a.owner_token);
    line += "  account " + std::to_string(a.id) + " (" + owners_by_account_[a.id] + ") " +
            format_money(now.balance, now.currency);
  }
  note(line);
}

std::vector<LedgerEntry> Scene::entries(const std::string& memo) {
  std::vector<LedgerEntry> found;
  for (auto& e : api_.ledger_after(0))
    if (e.memo == memo) found.push_back(std::move(e));
  return found;
}

int Scene::show_ledger(const std::string& when, const std::string& memo) {
  auto found = entries(memo);
  std::string amounts;
  for (const auto& e : found) amounts += (amounts.empty() ? "" : ", ") + format_money(e.amount, e.currency);
  note("   " + when + ": the ledger holds " + std::to_string(found.size()) + (found.size() == 1 ? " entry" : " entries") +
       " for \"" + memo + "\"" + (amounts.empty() ? "" : " (" + amounts + ")"));
  return static_cast<int>(found.size());
}

bool Scene::wait_for_moves(const std::string& memo, int count, std::chrono::milliseconds patience) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  while (moves(memo) < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(kLedgerPoll);
  }
  return true;
}

void Scene::advance_clock(std::chrono::seconds by) {
  std::string body = "{\"advance_ms\":" + std::to_string(by.count() * 1000) + "}";
  request_line("> POST /admin/clock   (as the instructor)");
  request_line("> " + body);
  api_.advance_clock_ms(by.count() * 1000);
  if (narration_.history) narration_.history->fault(narration_.check, "clock", body);
  note("< 200 OK: the lab clock is " + std::to_string(by.count()) + " s later");
}

void Scene::restart_after_crash() {
  target_->restart_after_crash();
  if (narration_.history)
    narration_.history->fault(narration_.check, "restart", "port " + std::to_string(target_->address().port));
  note("   (the server process is gone; it is started again on the same database, now on port " +
       std::to_string(target_->address().port) + ")");
}

HttpRequest Scene::transfer(const ClientInfo& who, const std::string& key, const std::string& body) const {
  HttpRequest req{"POST", "/transfers", {{"Authorization", "Bearer " + who.token}}, body};
  req.headers.emplace_back("Content-Type", "application/json");
  req.headers.emplace_back("Idempotency-Key", "\"" + key + "\"");
  return req;
}

void Scene::show_request(const HttpRequest& request) {
  std::string who;
  for (const auto& [name, value] : request.headers)
    if (name == "Authorization") {
      auto it = names_by_token_.find(value.substr(std::string("Bearer ").size()));
      who = it == names_by_token_.end() ? "" : "   (as " + it->second + ")";
    }
  request_line("> " + request.method + " " + request.target + who);
  // The token and the media type are the same on every request: only the headers of the lesson are shown.
  for (const auto& [name, value] : request.headers)
    if (name != "Authorization" && name != "Content-Type") request_line("> " + name + ": " + value);
  if (!request.body.empty()) request_line("> " + request.body);
}

void Scene::show_answer(const Exchange& x) {
  if (!x.response) {
    damage("< no response: " + x.error);
    return;
  }
  const HttpResponse& res = *x.response;
  note("< " + status_line(res.status));
  for (const char* name : {"Idempotent-Replayed", "Retry-After"})
    if (auto value = res.header(name)) note(std::string("< ") + name + ": " + *value);
  note("< " + res.body);
}

// A repeat is a request whose key went out before in this scene; the observer may hold it (a prediction).
void Scene::repeat_check(const HttpRequest& request) {
  for (const auto& [name, value] : request.headers)
    if (name == "Idempotency-Key" && !keys_sent_.insert(value).second && narration_.observer)
      narration_.observer->before_repeat(request);
}

// The history's intent of a demo request is its key: each story gives every intention its own key.
std::int64_t Scene::record_invoke(const HttpRequest& request) {
  if (!narration_.history) return 0;
  std::optional<std::string> key;
  for (const auto& [name, value] : request.headers)
    if (name == "Idempotency-Key") key = value;
  return narration_.history->invoke(narration_.check, key.value_or("-"), key, request);
}

void Scene::record_complete(std::int64_t op, const Exchange& x) {
  if (narration_.history && op) narration_.history->complete(op, x);
}

Exchange Scene::send(const HttpRequest& request) {
  repeat_check(request);
  show_request(request);
  auto op = record_invoke(request);
  Exchange x = exchange(target_->address(), request);
  record_complete(op, x);
  show_answer(x);
  return x;
}

void Scene::send_and_lose(const HttpRequest& request, std::chrono::milliseconds gateway_timeout) {
  repeat_check(request);
  show_request(request);
  auto op = record_invoke(request);
  Exchange x;
  const Address to = target_->address();  // once: the bytes name the server they are sent to
  auto connection = Connection::open_patiently(to, kConnectPatience, &x.error);
  if (!connection || !connection->send_all(request.to_wire(to), &x.error)) {
    x.done_ns = monotonic_ns();
    record_complete(op, x);
    damage("< the request could not be sent: " + x.error);
    return;
  }
  x.sent_ns = monotonic_ns();
  x.maybe_reached = true;
  auto res = connection->read_response(gateway_timeout, &x.error);
  x.done_ns = monotonic_ns();
  if (res) {
    x.response = std::move(res);
    record_complete(op, x);
    note("< (an answer came within the gateway's timeout after all: " + status_line(x.response->status) + ")");
    return;
  }
  x.error = "lost: the gateway gave up after " + std::to_string(gateway_timeout.count()) + " ms";
  record_complete(op, x);
  // The client gives up; an observer with a history goes on reading, to see when the server ended it.
  if (in_flight_) in_flight_->watch(op, std::move(*connection));
  else connection->abandon();
  damage("< no response: the gateway gave up after " + std::to_string(gateway_timeout.count()) +
         " ms; the request may or may not have run");
}

std::future<Exchange> Scene::send_in_background(const HttpRequest& request) {
  repeat_check(request);
  show_request(request);
  request_line("  (sent; its answer comes later)");
  auto op = record_invoke(request);
  return std::async(std::launch::async, [this, op, to = target_->address(), request] {
    Exchange x = exchange(to, request);
    record_complete(op, x);  // History is thread-safe
    return x;
  });
}

std::vector<Exchange> Scene::send_together(const HttpRequest& request, int copies) {
  // As grader/checks/check_run.cc:CheckRun::send_simultaneously does it.
  repeat_check(request);
  std::vector<Exchange> results(static_cast<std::size_t>(copies));
  std::latch primed(copies);
  std::latch go(1);
  const Address to = target_->address();
  const std::string wire = request.to_wire(to);
  {
    std::vector<std::jthread> threads;
    for (auto& x : results)
      threads.emplace_back([&] {
        auto connection = Connection::open_patiently(to, kConnectPatience, &x.error);
        // Everything but the last byte now: the server holds the request, waiting for its end.
        bool ready = connection && connection->send_all(std::string_view(wire).substr(0, wire.size() - 1), &x.error);
        primed.count_down();
        go.wait();
        auto op = record_invoke(request);
        if (ready && connection->send_all(std::string_view(wire).substr(wire.size() - 1), &x.error)) {
          x.sent_ns = monotonic_ns();
          x.response = connection->read_response(kResponseTimeout, &x.error);
        }
        x.done_ns = monotonic_ns();
        record_complete(op, x);
      });
    primed.wait();
    go.count_down();  // the last bytes leave within microseconds of each other
  }  // joins
  return results;
}

}  // namespace grader
