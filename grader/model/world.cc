// world.cc: one request's two steps in one world (world.h): arrive (who asks, which key, which body, what
// the key table says) and finish (the money, in its transaction, with the lab's crash and busy points).
// Every place the contract leaves a choice returns one world per choice. The numbers in comments are the
// rules of contract.h.
#include "grader/model/world.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "grader/model/canonical.h"

namespace grader::model {

KeyRow* World::row(std::int64_t id) {
  for (KeyRow& r : keys)
    if (r.row == id) return &r;
  return nullptr;
}

Flight* World::flight(int id) {
  for (Flight& f : flights)
    if (f.id == id) return &f;
  return nullptr;
}

std::string World::key() const {
  std::ostringstream o;
  for (bool l : lessons) o << l;
  o << '|' << alive << '|' << offset_ms << "|C";
  for (const Client& c : bank.clients) o << c.id << ':' << c.token << ',';
  o << "|A";
  for (const Account& a : bank.accounts) o << a.id << ':' << a.client << ':' << a.balance << a.currency << ',';
  o << "|L";
  for (const Entry& e : bank.ledger) o << e.request.canonical << '@' << e.from_balance_after << '#' << e.id.value_or(-1) << ',';
  o << "|K";
  for (const KeyRow& r : keys)
    o << r.row << ':' << r.scope.client << static_cast<int>(r.scope.endpoint) << r.scope.key.size() << ':' << r.scope.key
      << r.fingerprint << ':' << static_cast<int>(r.state) << r.fence << ':' << r.holder << ':' << r.locked_until.lo << '-'
      << r.locked_until.hi << ':' << r.expires_at.lo << '-' << r.expires_at.hi << ':' << r.stored.status << r.stored.problem
      << r.stored.entry << r.stored.bytes_known << r.stored.body << ',';
  o << "|F";
  for (const Flight& f : flights)
    o << f.id << ':' << static_cast<int>(f.phase) << ':' << f.row << ':' << f.fence << ':' << static_cast<int>(f.expect.kind)
      << f.expect.status << f.expect.entry << ':' << f.expect.row << f.expect.may_be_lost << ',';
  return o.str();
}

namespace {

Expect problem(int status, std::vector<std::string> types, const char* rule) {
  Expect e;
  e.kind = Expect::Kind::Problem;
  e.status = status;
  e.problems = std::move(types);
  e.rule = rule;
  e.retry_after = status == 409 || status == 503;
  e.www_authenticate = status == 401;
  return e;
}

Expect of_kind(Expect::Kind kind, const char* rule) {
  Expect e;
  e.kind = kind;
  e.rule = rule;
  return e;
}

std::vector<World> done(World x, int id, Expect e) {
  x.flight(id)->phase = Flight::Phase::Done;
  x.flight(id)->expect = std::move(e);
  return {std::move(x)};
}

// "Authorization: Bearer <token>", exactly one header line, no control byte anywhere (http-contract.md).
std::optional<std::string> bearer_token(const Request& r) {
  auto values = header_values(r.headers, "Authorization");
  if (values.size() != 1) return std::nullopt;
  const std::string& v = values[0];
  for (char c : v)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return std::nullopt;
  if (v.rfind("Bearer ", 0) != 0 || v.size() == 7) return std::nullopt;
  return v.substr(7);
}

Span now_of(const World& w, const Flight& f, const Settings& s, std::int64_t now_real_ms) {
  return {f.request.real_ms + f.offset_at_send, now_real_ms + w.offset_ms + s.clock_slack_ms};
}

// The process dies: what was in flight gets no answer; what had finished may have been answered or not.
void crash_server(World& x, int crashing) {
  x.alive = false;
  for (KeyRow& r : x.keys) r.holder = -1;
  for (Flight& f : x.flights) {
    if (f.id == crashing) continue;
    if (f.phase == Flight::Phase::Done) {
      f.expect.may_be_lost = true;
    } else {
      f.phase = Flight::Phase::Done;
      f.expect = of_kind(Expect::Kind::NoAnswer, "M18");
    }
  }
}

std::optional<std::int64_t> integral(const Json* v, std::int64_t min) {
  if (v == nullptr || v->kind != Json::Kind::Number || v->number < static_cast<double>(min) ||
      v->number > static_cast<double>(kMaxMoney) || static_cast<double>(static_cast<std::int64_t>(v->number)) != v->number)
    return std::nullopt;
  return static_cast<std::int64_t>(v->number);
}

// ---- admin and account routes: one step, no key table ----

std::vector<World> arrive_admin(World x, int id, const Settings& s) {
  Flight& f = *x.flight(id);
  const Request& r = f.request;
  if (bearer_token(r) != s.admin_token) return done(std::move(x), id, problem(401, {"unauthorized"}, "M1"));
  JsonText body = parse_json(r.body);
  const Json* obj = body.fault == JsonFault::None && body.value.kind == Json::Kind::Object ? &body.value : nullptr;
  if (r.path == "/admin/clock") {
    if (!s.lab_controls) return done(std::move(x), id, problem(403, {"lab-controls-disabled"}, "M21"));
    auto advance = obj ? integral(obj->member("advance_ms"), 0) : std::nullopt;
    if (!advance) return done(std::move(x), id, problem(400, {"invalid-field"}, "M21"));
    x.offset_ms += *advance;
    Expect e = of_kind(Expect::Kind::ClockMoved, "M21");
    e.advance_ms = *advance;
    return done(std::move(x), id, e);
  }
  if (r.path == "/admin/clients") {
    const Json* name = obj ? obj->member("name") : nullptr;
    if (name == nullptr || name->kind != Json::Kind::String) return done(std::move(x), id, problem(400, {"invalid-field"}, "M21"));
    return done(std::move(x), id, of_kind(Expect::Kind::ClientCreated, "M21"));
  }
  // /admin/accounts
  auto client = obj ? integral(obj->member("client_id"), 1) : std::nullopt;
  auto balance = obj ? integral(obj->member("balance"), 0) : std::nullopt;
  const Json* currency = obj ? obj->member("currency") : nullptr;
  bool known = client && std::any_of(x.bank.clients.begin(), x.bank.clients.end(), [&](const Client& c) { return c.id == *client; });
  bool currency_ok = currency && currency->kind == Json::Kind::String && currency->text.size() == 3 &&
                     std::all_of(currency->text.begin(), currency->text.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (!known || !balance || !currency_ok) return done(std::move(x), id, problem(400, {"invalid-field"}, "M21"));
  Expect e = of_kind(Expect::Kind::AccountCreated, "M21");
  e.new_account_client = *client;
  e.new_account_balance = *balance;
  e.new_account_currency = currency->text;
  return done(std::move(x), id, e);
}

std::vector<World> arrive_account(World x, int id) {
  Flight& f = *x.flight(id);
  auto token = bearer_token(f.request);
  const Client* client = token ? x.bank.client_with_token(*token) : nullptr;
  if (client == nullptr) return done(std::move(x), id, problem(401, {"unauthorized"}, "M1"));
  std::string_view digits = std::string_view(f.request.path).substr(std::string_view("/accounts/").size());
  std::int64_t account = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), account);
  const Account* a = ec == std::errc() && end == digits.data() + digits.size() ? x.bank.account(account) : nullptr;
  if (a == nullptr || a->client != client->id) return done(std::move(x), id, problem(404, {"not-found"}, "M20"));
  Expect e = of_kind(Expect::Kind::AccountBalance, "M20");
  e.account = account;
  return done(std::move(x), id, e);
}

// ---- the money routes ----

// May the server have forgotten the row by `now`? Stage 6's expiry on the lab clock (M17, kExpired); and, in
// a world without KeptToTtl (lessons.h), any row whose lease has passed: a retention that ends too early, a
// mistake of stage 6's lesson, kept so that the models below stage 6 explain it (ladder.h).
Maybe forgotten(const World& w, const KeyRow& row, Span now) {
  const Maybe ttl = has(w.lessons, Lesson::KeyTtl) ? expired(row, now) : Maybe::No;
  if (has(w.lessons, Lesson::KeptToTtl) || ttl == Maybe::Yes) return ttl;
  return reached(row.locked_until, now) == Maybe::No ? ttl : Maybe::Either;  // it may, or may not yet
}

void claim(World& y, int id, const Scope& scope, Span now, const Settings& s) {
  Flight& f = *y.flight(id);
  KeyRow row;
  row.row = y.next_row++;
  row.scope = scope;
  row.fingerprint = f.money.canonical;
  row.holder = id;
  row.locked_until = now.plus(s.lease_seconds * 1000);
  row.expires_at = now.plus(s.key_ttl_seconds * 1000);
  row.epoch = y.restarts;
  y.keys.push_back(row);
  f.phase = Flight::Phase::Holding;
  f.row = row.row;
  f.fence = 1;
}

// An answer to a repeat of the row.
Expect of_repeat(Expect e, std::int64_t row_id) {
  e.repeat_of = row_id;
  return e;
}

// A repeat: the row it collided with decides (stage 4's table, and stages 2-3 before it).
std::vector<World> repeat(World y, int id, std::int64_t row_id, Span now, const Settings& s) {
  KeyRow& row = *y.row(row_id);
  Flight& f = *y.flight(id);
  if (has(y.lessons, Lesson::Fingerprint) && row.fingerprint != f.money.canonical)
    return done(std::move(y), id, of_repeat(problem(422, {"idempotency-key-reused"}, "M9"), row_id));
  if (!has(y.lessons, Lesson::InProgress))
    return done(std::move(y), id, of_repeat(of_kind(Expect::Kind::AlreadyProcessed, "M8"), row_id));
  if (row.state == KeyState::Completed) {
    bool replay = has(y.lessons, Lesson::StoredReplay);
    Expect e = of_repeat(of_kind(replay ? Expect::Kind::Replay : Expect::Kind::Rebuilt, replay ? "M15" : "M12"), row_id);
    e.row = row.row;
    e.entry = static_cast<std::size_t>(std::max<std::int64_t>(row.stored.entry, 0));
    return done(std::move(y), id, e);
  }
  std::vector<World> out;
  Maybe over = lease_run_out(row, now);
  if (over != Maybe::Yes) {
    for (World& z : done(y, id, of_repeat(problem(409, {"request-in-progress"}, "M10"), row_id))) out.push_back(std::move(z));
  }
  if (over != Maybe::No) {  // take over: the fence moves on, the old holder is out
    World z = y;
    KeyRow& r = *z.row(row_id);
    r.fence += 1;
    r.holder = id;
    r.locked_until = now.plus(s.lease_seconds * 1000);
    Flight& g = *z.flight(id);
    g.phase = Flight::Phase::Holding;
    g.row = r.row;
    g.fence = r.fence;
    g.runs_because = "M11";
    out.push_back(std::move(z));
  }
  return out;
}

std::vector<World> arrive_money(World x, int id, Endpoint endpoint, const Settings& s, std::int64_t now_real_ms) {
  Flight& f = *x.flight(id);
  auto token = bearer_token(f.request);
  const Client* client = token ? x.bank.client_with_token(*token) : nullptr;
  if (client == nullptr) return done(std::move(x), id, problem(401, {"unauthorized"}, "M1"));
  f.client = client->id;
  KeyHeader key;
  if (has(x.lessons, Lesson::Keys)) {
    key = read_idempotency_key(header_values(f.request.headers, "Idempotency-Key"));
    if (!key.ok) return done(std::move(x), id, problem(400, key.problems, "M2"));
  }
  BodyRead body = read_money_body(endpoint, header_value(f.request.headers, "Content-Type"), f.request.body);
  if (body.status != 0) return done(std::move(x), id, problem(body.status, {body.problem}, "M3"));
  f.money = body.request;
  if (!has(x.lessons, Lesson::Keys)) {  // stage 1: straight to the money
    f.phase = Flight::Phase::Holding;
    return {std::move(x)};
  }
  Scope scope = has(x.lessons, Lesson::Scope) ? Scope{client->id, endpoint, key.key} : Scope{0, Endpoint::Transfers, key.key};
  Span now = now_of(x, f, s, now_real_ms);
  auto found = std::find_if(x.keys.begin(), x.keys.end(), [&](const KeyRow& r) {
    return r.scope.client == scope.client && r.scope.endpoint == scope.endpoint && r.scope.key == scope.key;
  });
  if (found == x.keys.end()) {
    bool other_scope = std::any_of(x.keys.begin(), x.keys.end(), [&](const KeyRow& r) { return r.scope.key == scope.key; });
    if (other_scope) x.flight(id)->runs_because = "M16";
    claim(x, id, scope, now, s);
    return {std::move(x)};
  }
  std::vector<World> out;
  Maybe gone = forgotten(x, *found, now);
  if (gone != Maybe::No) {  // the claim deletes an expired row of its own scope first (M17)
    World y = x;
    std::int64_t dead = found->row;
    std::erase_if(y.keys, [&](const KeyRow& r) { return r.row == dead; });
    y.flight(id)->runs_because = "M17";
    claim(y, id, scope, now, s);
    out.push_back(std::move(y));
  }
  if (gone != Maybe::Yes)
    for (World& z : repeat(x, id, found->row, now, s)) out.push_back(std::move(z));
  return out;
}

// The money's transaction and the key's completion, as one (stage 4 on), with the first answer it gives.
World completed(World y, int id, const BankVerdict& v) {
  Flight& f = *y.flight(id);
  Expect e;
  if (v.status == 201) {
    e.kind = Expect::Kind::Created;
    e.rule = "M5";
    e.status = 201;
    e.entry = y.bank.move(f.money);
  } else {
    e = problem(v.status, {v.problem}, "M4");
  }
  if (f.runs_because != nullptr) e.rule = f.runs_because;
  if (KeyRow* row = y.row(f.row)) {
    row->state = KeyState::Completed;
    row->holder = -1;
    row->stored = StoredAnswer{.status = v.status, .problem = v.problem,
                               .entry = v.status == 201 ? static_cast<std::int64_t>(e.entry) : -1,
                               .bytes_known = false, .content_type = {}, .body = {}};
    e.row = row->row;
  }
  f.phase = Flight::Phase::Done;
  f.expect = e;
  return y;
}

// The request ends: completed(); and, in a world without RefusalsKept (lessons.h), a refusal may instead free
// its key, as a busy 503 does from stage 4, so that its retry runs again.
std::vector<World> ended(const World& x, int id, const BankVerdict& v) {
  std::vector<World> out{completed(x, id, v)};
  const Flight& f = *const_cast<World&>(x).flight(id);
  if (v.status == 201 || f.row == 0 || has(x.lessons, Lesson::RefusalsKept)) return out;
  World freed = x;
  std::erase_if(freed.keys, [&](const KeyRow& r) { return r.row == f.row; });
  Expect e = problem(v.status, {v.problem}, f.runs_because != nullptr ? f.runs_because : "M4");
  for (World& z : done(std::move(freed), id, e)) out.push_back(std::move(z));
  return out;
}

World crashed_before_money(World y, int id) {
  if (KeyRow* row = y.row(y.flight(id)->row)) row->holder = -1;
  crash_server(y, id);
  return done(std::move(y), id, of_kind(Expect::Kind::NoAnswer, "M18"))[0];
}

World crashed_after_money(World y, int id, const BankVerdict& v) {
  y = completed(std::move(y), id, v);
  crash_server(y, id);
  return done(std::move(y), id, of_kind(Expect::Kind::NoAnswer, "M18"))[0];
}

}  // namespace

std::vector<World> arrive(const World& w, int id, const Settings& s, std::int64_t now_real_ms) {
  World x = w;
  Flight& f = *x.flight(id);
  if (!x.alive) return done(std::move(x), id, of_kind(Expect::Kind::NoAnswer, "M19"));
  const std::string& path = f.request.path;
  if (f.request.method == "POST" && path == "/transfers") return arrive_money(std::move(x), id, Endpoint::Transfers, s, now_real_ms);
  if (f.request.method == "POST" && path == "/payouts") return arrive_money(std::move(x), id, Endpoint::Payouts, s, now_real_ms);
  if (f.request.method == "GET" && path.rfind("/accounts/", 0) == 0) return arrive_account(std::move(x), id);
  if (f.request.method == "POST" && (path == "/admin/clients" || path == "/admin/accounts" || path == "/admin/clock"))
    return arrive_admin(std::move(x), id, s);
  return done(std::move(x), id, problem(404, {"route-not-found"}, "M6"));
}

std::vector<World> finish(const World& w, int id, const Settings& s, std::int64_t now_real_ms) {
  World x = w;
  Flight& f = *x.flight(id);
  if (!x.alive) return done(std::move(x), id, of_kind(Expect::Kind::NoAnswer, "M18"));
  std::vector<World> out;
  // Does the claim still hold? From stage 4 the money's transaction checks the row's id and fence first.
  if (has(x.lessons, Lesson::InProgress) && f.row != 0) {
    KeyRow* row = x.row(f.row);
    if (row != nullptr && forgotten(x, *row, now_of(x, f, s, now_real_ms)) != Maybe::No) {
      // The sweeper's freedom: an expired row may have been swept already, or not yet (M17).
      World swept = x;
      std::int64_t dead = row->row;
      std::erase_if(swept.keys, [&](const KeyRow& r) { return r.row == dead; });
      for (World& z : finish(swept, id, s, now_real_ms)) out.push_back(std::move(z));
    }
    if (row == nullptr || row->fence != f.fence || row->state != KeyState::InProgress) {
      for (World& z : done(x, id, problem(409, {"request-in-progress"}, "M11"))) out.push_back(std::move(z));
      return out;
    }
  }
  std::string crash = s.lab_controls ? header_value(f.request.headers, "Lab-Crash").value_or("") : "";
  bool busy = s.lab_controls && header_value(f.request.headers, "Lab-Fail") == "busy";
  BankVerdict v = x.bank.decide(f.client, f.money);
  bool keys = has(x.lessons, Lesson::Keys);

  if (crash == "before-money") {
    out.push_back(crashed_before_money(x, id));
  } else if (busy) {
    // 503: nothing moves. From stage 4 the claim is released; before, the key stays taken.
    World y = x;
    if (has(y.lessons, Lesson::InProgress)) std::erase_if(y.keys, [&](const KeyRow& r) { return r.row == f.row; });
    else if (KeyRow* row = y.row(f.row)) row->holder = -1;
    for (World& z : done(y, id, problem(503, {"service-unavailable"}, "M14"))) out.push_back(std::move(z));
    if (v.status != 201)  // the bank may refuse before the fault
      for (World& z : ended(x, id, v)) out.push_back(std::move(z));
  } else if (crash == "after-money") {
    out.push_back(crashed_after_money(x, id, v));
    if (v.status != 201)  // a refusal commits no money: it may answer
      for (World& z : ended(x, id, v)) out.push_back(std::move(z));
  } else if (crash.rfind("after-commit-", 0) == 0 && crash.size() == 14 && crash[13] >= '1' && crash[13] <= '9') {
    // Wherever the server commits. From stage 4 the claim is the first commit, alone, and the money a later one.
    // Before, a server with keys may commit the key and the money at once (stages 2 and 3: one transaction, so
    // the first commit moved the money and kept its key), or the money before its key (wrong turn 4b, stage 4's
    // lesson lacking): the money may have moved at the first commit (matrix seed 757731695 credited the contract).
    int n = crash[13] - '0';
    if (keys && n == 1 && has(x.lessons, Lesson::InProgress)) {
      out.push_back(crashed_before_money(x, id));
    } else {
      if (keys) out.push_back(crashed_before_money(x, id));
      out.push_back(crashed_after_money(x, id, v));
      if (n >= 2 || v.status != 201)  // fewer commits: it ends normally
        for (World& z : ended(x, id, v)) out.push_back(std::move(z));
    }
  } else {
    for (World& z : ended(x, id, v)) out.push_back(std::move(z));
  }
  return out;
}

}  // namespace grader::model
