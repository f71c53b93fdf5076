// day_log.cc: see day_log.h. The grammar (JSON Lines; logs/README.md explains each member):
//
//   log     := line*                       one JSON object per line; blank lines and "//" lines are comments
//   line    := day | client | account | intent
//   day     := {"day": DATE, ["seed": N,] ["next_day_clock_ms": MS]}           at most once, first
//   client  := {"client": NAME}
//   account := {"account": NAME, "client": NAME, "balance": N, "currency": CCC}
//   intent  := {"intent": ID, "client": NAME, (transfer | payout | "body_of": ID),
//               "key": KEY, ["memo": TEXT,] ["story": WORD,] "sends": [send, ...]}
//   transfer:= "transfer": {"from": ACCOUNT, "to": ACCOUNT | "nobody", "amount": N, ["currency": CCC]}
//   payout  := "payout": {"from": ACCOUNT, "destination": TEXT, "amount": N, ["currency": CCC]}
//   send    := {(when), ["next_day": true,] ["key": KEY,] ["amount": N,] ["as": NAME,] ["reordered": true,]
//               ["delay_ms": MS,] ["timeout_ms": MS | "drop": true,] ["crash": "before-money"|"after-money",]
//               ["clock_ms": MS]}
//   when    := "at": "HH:MM:SS[.mmm]" | "after": MS | "during": MS     the first send of a day has "at"
//
// Names are declared before they are used. Unknown members are errors, so a typo cannot pass silently.
#include "grader/day/day_log.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

namespace grader {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxDelayMs = 10'000;          // Lab-Delay-Ms is capped there (docs/reference/lab-controls.md "Lab controls")
constexpr std::int64_t kMaxWaitMs = 60'000;           // a send waits at most a minute of real time

struct LineReader {
  const std::string& file;
  int line = 0;
  [[noreturn]] void fail(const std::string& why) const {
    throw DayLogError(file + ":" + std::to_string(line) + ": " + why);
  }
  void only(const json& j, std::initializer_list<const char*> allowed) const {
    for (const auto& [name, value] : j.items()) {
      bool known = false;
      for (const char* a : allowed) known = known || name == a;
      if (!known) fail("unknown member \"" + name + "\"");
    }
  }
  std::string text(const json& j, const char* name, bool required = true) const {
    if (!j.contains(name)) {
      if (required) fail(std::string("\"") + name + "\" is missing");
      return "";
    }
    if (!j[name].is_string() || j[name].get<std::string>().empty())
      fail(std::string("\"") + name + "\" must be a non-empty string");
    return j[name].get<std::string>();
  }
  std::optional<std::int64_t> integer(const json& j, const char* name, std::int64_t lo, std::int64_t hi) const {
    if (!j.contains(name)) return std::nullopt;
    if (!j[name].is_number_integer()) fail(std::string("\"") + name + "\" must be an integer");
    auto v = j[name].get<std::int64_t>();
    if (v < lo || v > hi)
      fail(std::string("\"") + name + "\" must be from " + std::to_string(lo) + " to " + std::to_string(hi));
    return v;
  }
  bool flag(const json& j, const char* name) const {
    if (!j.contains(name)) return false;
    if (!j[name].is_boolean()) fail(std::string("\"") + name + "\" must be true or false");
    return j[name].get<bool>();
  }
};

DaySend parse_send(const LineReader& r, const json& s, const DayLog& day) {
  if (!s.is_object()) r.fail("each send is an object");
  r.only(s, {"at", "after", "during", "next_day", "key", "amount", "as", "reordered", "delay_ms", "timeout_ms",
             "drop", "crash", "clock_ms"});
  DaySend send;
  if (s.contains("at")) {
    if (!s["at"].is_string()) r.fail("\"at\" is a time of day, \"HH:MM:SS\" or \"HH:MM:SS.mmm\"");
    send.at_ms = parse_clock_text(s["at"].get<std::string>());
    if (!send.at_ms) r.fail("\"at\" is a time of day, \"HH:MM:SS\" or \"HH:MM:SS.mmm\"");
  }
  send.after_ms = r.integer(s, "after", 0, kMaxWaitMs);
  send.during_ms = r.integer(s, "during", 0, kMaxWaitMs);
  if (!!send.at_ms + !!send.after_ms + !!send.during_ms != 1)
    r.fail("each send has exactly one of \"at\", \"after\" and \"during\"");
  send.next_day = r.flag(s, "next_day");
  if (s.contains("key")) {
    send.key = r.text(s, "key");
    if (send.key->size() > 200) r.fail("\"key\" is at most 200 characters (the replay adds a prefix)");
  }
  send.amount = r.integer(s, "amount", 1, kMaxMoney);
  if (s.contains("as")) {
    send.as_client = r.text(s, "as");
    if (!day.has_client(*send.as_client))
      r.fail("\"as\": no client \"" + *send.as_client + "\" was declared");
  }
  send.reordered = r.flag(s, "reordered");
  send.delay_ms = r.integer(s, "delay_ms", 0, kMaxDelayMs).value_or(0);
  send.timeout_ms = r.integer(s, "timeout_ms", 1, kMaxWaitMs);
  send.drop = r.flag(s, "drop");
  if (send.drop && send.timeout_ms) r.fail("a send is dropped or times out, not both");
  if (s.contains("crash")) {
    send.crash = r.text(s, "crash");
    if (send.crash != "before-money" && send.crash != "after-money")
      r.fail("\"crash\" is \"before-money\" or \"after-money\"");
  }
  send.clock_ms = r.integer(s, "clock_ms", 0, 400LL * 24 * 3600 * 1000).value_or(0);
  return send;
}

void parse_money(const LineReader& r, const json& m, DayIntent& intent, const DayLog& day) {
  if (!m.is_object()) r.fail("\"" + intent.kind + "\" is an object");
  if (intent.kind == "transfer")
    r.only(m, {"from", "to", "amount", "currency"});
  else
    r.only(m, {"from", "destination", "amount", "currency"});
  intent.from = r.text(m, "from");
  const DayAccount* from = day.account(intent.from);
  if (!from) r.fail("no account \"" + intent.from + "\" was declared");
  if (intent.kind == "transfer") {
    intent.to = r.text(m, "to");
    if (intent.to != kUnknownAccount && !day.account(intent.to))
      r.fail("no account \"" + intent.to + "\" was declared (\"nobody\" is the account no one has)");
    if (intent.to == intent.from) r.fail("a transfer goes to another account");
  } else {
    intent.destination = r.text(m, "destination");
  }
  auto amount = r.integer(m, "amount", 1, kMaxMoney);
  if (!amount) r.fail("\"amount\" is missing");
  intent.amount = *amount;
  intent.currency = m.contains("currency") ? r.text(m, "currency") : from->currency;
}

DayIntent parse_intent(const LineReader& r, const json& j, const DayLog& day, const std::set<std::string>& ids) {
  r.only(j, {"intent", "client", "transfer", "payout", "body_of", "key", "memo", "story", "sends"});
  DayIntent intent;
  intent.id = r.text(j, "intent");
  if (ids.count(intent.id)) r.fail("intent \"" + intent.id + "\" is declared twice");
  intent.client = r.text(j, "client");
  if (!day.has_client(intent.client))
    r.fail("no client \"" + intent.client + "\" was declared");
  const int shapes = j.contains("transfer") + j.contains("payout") + j.contains("body_of");
  if (shapes != 1) r.fail("an intent has exactly one of \"transfer\", \"payout\" and \"body_of\"");
  if (j.contains("body_of")) {
    intent.body_of = r.text(j, "body_of");
    const DayIntent* original = day.intent(intent.body_of);
    if (!original) r.fail("\"body_of\": no earlier intent \"" + intent.body_of + "\"");
    if (!original->body_of.empty())
      r.fail("\"body_of\": \"" + intent.body_of + "\" is itself a copy; name its original \"" + original->body_of + "\"");
    DayIntent copy = *original;  // the same request, sent by another client
    intent.kind = copy.kind, intent.from = copy.from, intent.to = copy.to, intent.destination = copy.destination;
    intent.amount = copy.amount, intent.currency = copy.currency, intent.memo = copy.memo;
    if (j.contains("memo")) r.fail("an intent with \"body_of\" sends the original's memo; it has no \"memo\"");
  } else {
    intent.kind = j.contains("transfer") ? "transfer" : "payout";
    parse_money(r, j[intent.kind], intent, day);
    intent.memo = r.text(j, "memo", false);
    if (intent.memo.size() > 150) r.fail("\"memo\" is at most 150 bytes (the replay adds a tag)");
  }
  intent.key = r.text(j, "key");
  if (intent.key.size() > 200) r.fail("\"key\" is at most 200 characters (the replay adds a prefix)");
  intent.story = j.contains("story") ? r.text(j, "story") : "plain";
  if (!j.contains("sends") || !j["sends"].is_array() || j["sends"].empty()) r.fail("\"sends\" is a non-empty array");
  for (const auto& s : j["sends"]) intent.sends.push_back(parse_send(r, s, day));
  if (!intent.sends.front().at_ms) r.fail("the first send has \"at\"");
  bool next_day = false;
  for (std::size_t k = 0; k < intent.sends.size(); ++k) {
    const DaySend& send = intent.sends[k];
    const bool first_of_its_day = k == 0 || (send.next_day && !next_day);
    if (send.next_day && !next_day && !send.at_ms) r.fail("the first next-day send has \"at\"");
    if (send.at_ms && !first_of_its_day) r.fail("only the first send of a day has \"at\" (the others: \"after\", \"during\")");
    if (next_day && !send.next_day) r.fail("a send of the day after a next-day send");
    next_day = next_day || send.next_day;
  }
  return intent;
}

// Written with members in reading order (nlohmann's plain json sorts them).
using ordered = nlohmann::ordered_json;

ordered money_json(const DayIntent& i, const DayLog& day) {
  ordered m = {{"from", i.from}};
  if (i.kind == "transfer") m["to"] = i.to;
  else m["destination"] = i.destination;
  m["amount"] = i.amount;
  const DayAccount* from = day.account(i.from);
  if (!from || from->currency != i.currency) m["currency"] = i.currency;
  return m;
}

ordered send_json(const DaySend& s) {
  ordered j = ordered::object();
  if (s.at_ms) j["at"] = clock_text(*s.at_ms);
  if (s.after_ms) j["after"] = *s.after_ms;
  if (s.during_ms) j["during"] = *s.during_ms;
  if (s.next_day) j["next_day"] = true;
  if (s.key) j["key"] = *s.key;
  if (s.amount) j["amount"] = *s.amount;
  if (s.as_client) j["as"] = *s.as_client;
  if (s.reordered) j["reordered"] = true;
  if (s.delay_ms) j["delay_ms"] = s.delay_ms;
  if (s.timeout_ms) j["timeout_ms"] = *s.timeout_ms;
  if (s.drop) j["drop"] = true;
  if (!s.crash.empty()) j["crash"] = s.crash;
  if (s.clock_ms) j["clock_ms"] = s.clock_ms;
  return j;
}

}  // namespace

// A day built by hand (tests, the generator before reindex()) has no index yet: then look linearly.
template <typename Item>
const Item* find_named(const std::vector<Item>& items, const std::map<std::string, std::size_t>& index,
                       const std::string& name, std::string Item::*name_member) {
  if (index.size() != items.size()) {
    for (const auto& item : items)
      if (item.*name_member == name) return &item;
    return nullptr;
  }
  auto it = index.find(name);
  return it == index.end() ? nullptr : &items[it->second];
}

const DayIntent* DayLog::intent(const std::string& id) const {
  return find_named(intents, intent_index, id, &DayIntent::id);
}

const DayAccount* DayLog::account(const std::string& name) const {
  return find_named(accounts, account_index, name, &DayAccount::name);
}

bool DayLog::has_client(const std::string& name) const {
  if (client_index.size() != clients.size()) return std::find(clients.begin(), clients.end(), name) != clients.end();
  return client_index.count(name) != 0;
}

void DayLog::reindex() {
  intent_index.clear(), account_index.clear(), client_index.clear();
  for (std::size_t k = 0; k < clients.size(); ++k) client_index[clients[k]] = k;
  for (std::size_t k = 0; k < intents.size(); ++k) intent_index[intents[k].id] = k;
  for (std::size_t k = 0; k < accounts.size(); ++k) account_index[accounts[k].name] = k;
}

std::size_t DayLog::send_count() const {
  std::size_t n = 0;
  for (const auto& i : intents) n += i.sends.size();
  return n;
}

std::string clock_text(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%02lld:%02lld:%02lld.%03lld", static_cast<long long>(ms / 3'600'000),
                static_cast<long long>(ms / 60'000 % 60), static_cast<long long>(ms / 1000 % 60),
                static_cast<long long>(ms % 1000));
  return text;
}

std::optional<std::int64_t> parse_clock_text(const std::string& t) {
  // Digits only where digits go (sscanf's %u would also take spaces and signs).
  if (t.size() != 8 && t.size() != 12) return std::nullopt;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const char want = k == 2 || k == 5 ? ':' : k == 8 ? '.' : '0';
    if (want == '0' ? t[k] < '0' || t[k] > '9' : t[k] != want) return std::nullopt;
  }
  auto number = [&](std::size_t at, std::size_t digits) { return std::stoll(t.substr(at, digits)); };
  const std::int64_t h = number(0, 2), m = number(3, 2), s = number(6, 2), ms = t.size() == 12 ? number(9, 3) : 0;
  if (h > 23 || m > 59 || s > 59) return std::nullopt;
  return ((h * 60 + m) * 60 + s) * 1000 + ms;
}

DayLog parse_day_log(std::istream& in, const std::string& name) {
  DayLog day;
  std::set<std::string> clients, accounts, intents;
  bool day_line = false;
  LineReader r{name};
  std::string text;
  while (std::getline(in, text)) {
    ++r.line;
    if (text.find_first_not_of(" \t\r") == std::string::npos || text.rfind("//", 0) == 0) continue;
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      r.fail(std::string("not JSON: ") + e.what());
    }
    if (!j.is_object()) r.fail("each line is a JSON object");
    if (j.contains("day")) {
      if (day_line || !day.clients.empty() || !day.accounts.empty() || !day.intents.empty())
        r.fail("the \"day\" line comes first, once");
      day_line = true;
      r.only(j, {"day", "seed", "next_day_clock_ms"});
      day.date = r.text(j, "day");
      if (j.contains("seed")) {
        if (!j["seed"].is_number_unsigned()) r.fail("\"seed\" is a non-negative integer");
        day.seed = j["seed"].get<std::uint64_t>();
      }
      day.next_day_clock_ms = r.integer(j, "next_day_clock_ms", 1, 400LL * 24 * 3600 * 1000).value_or(day.next_day_clock_ms);
    } else if (j.contains("account")) {
      r.only(j, {"account", "client", "balance", "currency"});
      DayAccount a{r.text(j, "account"), r.text(j, "client"), 0, r.text(j, "currency")};
      if (a.name == kUnknownAccount) r.fail("\"nobody\" is the account no one has; choose another name");
      if (!accounts.insert(a.name).second) r.fail("account \"" + a.name + "\" is declared twice");
      if (!clients.count(a.client)) r.fail("no client \"" + a.client + "\" was declared");
      auto balance = r.integer(j, "balance", 0, kMaxMoney);
      if (!balance) r.fail("\"balance\" is missing");
      a.balance = *balance;
      day.account_index[a.name] = day.accounts.size();
      day.accounts.push_back(a);
    } else if (j.contains("intent")) {
      day.intents.push_back(parse_intent(r, j, day, intents));
      intents.insert(day.intents.back().id);
      day.intent_index[day.intents.back().id] = day.intents.size() - 1;
    } else if (j.contains("client")) {
      r.only(j, {"client"});
      std::string c = r.text(j, "client");
      if (!clients.insert(c).second) r.fail("client \"" + c + "\" is declared twice");
      day.client_index[c] = day.clients.size();
      day.clients.push_back(c);
    } else {
      r.fail("a line is a \"day\", \"client\", \"account\" or \"intent\"");
    }
  }
  if (day.intents.empty()) throw DayLogError(name + ": the day has no intents");
  return day;
}

DayLog read_day_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DayLogError(path + ": cannot read it");
  return parse_day_log(in, path);
}

void write_day_log(std::ostream& out, const DayLog& day) {
  ordered header = {{"day", day.date}};
  if (day.seed) header["seed"] = *day.seed;
  header["next_day_clock_ms"] = day.next_day_clock_ms;
  out << header.dump() << "\n";
  for (const auto& c : day.clients) out << json{{"client", c}}.dump() << "\n";
  for (const auto& a : day.accounts)
    out << ordered{{"account", a.name}, {"client", a.client}, {"balance", a.balance}, {"currency", a.currency}}.dump()
        << "\n";
  for (const auto& i : day.intents) {
    std::string line = "{\"intent\":" + json(i.id).dump() + ",\"client\":" + json(i.client).dump();
    if (!i.body_of.empty()) line += ",\"body_of\":" + json(i.body_of).dump();
    else line += ",\"" + i.kind + "\":" + money_json(i, day).dump();
    if (i.body_of.empty() && !i.memo.empty()) line += ",\"memo\":" + json(i.memo).dump();
    line += ",\"story\":" + json(i.story).dump() + ",\"key\":" + json(i.key).dump() + ",\"sends\":[";
    for (std::size_t k = 0; k < i.sends.size(); ++k) line += (k ? "," : "") + send_json(i.sends[k]).dump();
    out << line << "]}\n";
  }
}

}  // namespace grader
