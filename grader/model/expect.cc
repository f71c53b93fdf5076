// expect.cc: does an observed answer agree with what one world allows (world.h: match), and that
// allowance in words (describe). The contract fixes statuses, problem types, the headers Retry-After,
// WWW-Authenticate, Content-Type and Idempotent-Replayed, a 201's fields, and a replay's bytes; it leaves
// ids, titles, details and created_at open, and an agreeing answer teaches the world the ids it chose.
#include <algorithm>
#include <cctype>
#include <string_view>

#include "grader/model/canonical.h"
#include "grader/model/world.h"

namespace grader::model {

namespace {

std::optional<std::int64_t> integer_member(const Json& obj, const char* name) {
  const Json* v = obj.member(name);
  if (v == nullptr || v->kind != Json::Kind::Number || static_cast<double>(static_cast<std::int64_t>(v->number)) != v->number)
    return std::nullopt;
  return static_cast<std::int64_t>(v->number);
}

std::string string_member(const Json& obj, const char* name) {
  const Json* v = obj.member(name);
  return v != nullptr && v->kind == Json::Kind::String ? v->text : std::string("\x01(not a string)");
}

bool replayed_header(const Answer& a) {
  auto v = header_value(a.headers, "Idempotent-Replayed");
  return v.has_value();
}

std::string check_problem(const Answer& a, int status, const std::vector<std::string>& types) {
  if (a.status != status) return "status " + std::to_string(a.status) + ", not " + std::to_string(status);
  if (media_type(header_value(a.headers, "Content-Type").value_or("")) != "application/problem+json")
    return "Content-Type is not application/problem+json";
  JsonText doc = parse_json(a.body);
  if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object) return "the body is not a JSON object";
  std::string type = string_member(doc.value, "type");
  bool known = std::any_of(types.begin(), types.end(), [&](const std::string& t) { return type == "/problems/" + t; });
  if (!known) return "problem type " + type;
  if (integer_member(doc.value, "status") != status) return "the document's status is not " + std::to_string(status);
  if (!doc.value.member("title") || !doc.value.member("detail")) return "the document lacks title or detail";
  return "";
}

// A 201's body: the entry's fields, and (when `snapshots`) the balance right after it.
std::string check_entry(const Answer& a, World& w, std::size_t index, bool snapshots) {
  if (a.status != 201) return "status " + std::to_string(a.status) + ", not 201";
  if (media_type(header_value(a.headers, "Content-Type").value_or("")) != "application/json") return "Content-Type is not application/json";
  JsonText doc = parse_json(a.body);
  if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object) return "the body is not a JSON object";
  const Json& b = doc.value;
  Entry& e = w.bank.ledger[index];
  const MoneyRequest& r = e.request;
  bool transfer = r.endpoint == Endpoint::Transfers;
  if (string_member(b, "kind") != (transfer ? "transfer" : "payout")) return "kind is not " + std::string(transfer ? "transfer" : "payout");
  if (integer_member(b, "from_account") != r.from) return "from_account differs from the request's";
  if (transfer && integer_member(b, "to_account") != r.to) return "to_account differs from the request's";
  if (!transfer && string_member(b, "destination") != r.destination) return "destination differs from the request's";
  if (integer_member(b, "amount") != r.amount) return "amount differs from the request's";
  if (string_member(b, "currency") != r.currency) return "currency differs from the request's";
  if (string_member(b, "memo") != r.memo) return "memo differs from the request's (\"\" when omitted)";
  const Json* metadata = b.member("metadata");
  if (r.metadata.has_value() != (metadata != nullptr)) return "metadata is not echoed as it was sent";
  if (metadata && canonical_text(*metadata) != *r.metadata) return "metadata differs from the request's";
  if (!integer_member(b, "created_at")) return "created_at is not an integer";
  auto after = integer_member(b, "from_balance_after");
  if (!after) return "from_balance_after is not an integer";
  if (snapshots && *after != e.from_balance_after)
    return "from_balance_after " + std::to_string(*after) + ", not " + std::to_string(e.from_balance_after);
  auto id = integer_member(b, "id");
  if (!id) return "id is not an integer";
  if (e.id) {
    if (*e.id != *id) return "id " + std::to_string(*id) + ", not the entry's " + std::to_string(*e.id);
  } else {
    for (const Entry& other : w.bank.ledger)
      if (other.id == id) return "id " + std::to_string(*id) + " is another entry's";
    e.id = *id;  // learnt: the contract leaves ids to the server
  }
  return "";
}

void keep_first_bytes(World& w, std::int64_t row_id, const Answer& a) {
  KeyRow* row = w.row(row_id);
  if (row == nullptr || row->state != KeyState::Completed || row->stored.bytes_known) return;
  row->stored.bytes_known = true;
  row->stored.content_type = header_value(a.headers, "Content-Type").value_or("");
  row->stored.body = a.body;
}

std::string check_outcome(const Answer& a, World& w, const StoredAnswer& stored, bool snapshots) {
  if (stored.status == 201) return check_entry(a, w, static_cast<std::size_t>(stored.entry), snapshots);
  return check_problem(a, stored.status, {stored.problem});
}

}  // namespace

std::string match(const Expect& e, const Answer& a, World& w) {
  if (e.kind == Expect::Kind::NoAnswer) return a.answered ? "an answer (status " + std::to_string(a.status) + ")" : "";
  if (!a.answered) return e.may_be_lost ? "" : "no answer";
  bool first_answers_plain = has(w.lessons, Lesson::StoredReplay);
  switch (e.kind) {
    case Expect::Kind::NoAnswer: return "";
    case Expect::Kind::Problem: {
      std::string why = check_problem(a, e.status, e.problems);
      if (!why.empty()) return why;
      if (e.retry_after) {
        std::string v = header_value(a.headers, "Retry-After").value_or("");
        if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }) || v == "0")
          return "Retry-After is not a positive number of seconds";
      }
      if (e.www_authenticate && header_value(a.headers, "WWW-Authenticate").value_or("").rfind("Bearer", 0) != 0)
        return "no WWW-Authenticate: Bearer";
      if (first_answers_plain && replayed_header(a)) return "a first answer carries Idempotent-Replayed";
      if (e.row != 0) keep_first_bytes(w, e.row, a);
      return "";
    }
    case Expect::Kind::Created: {
      std::string why = check_entry(a, w, e.entry, true);
      if (!why.empty()) return why;
      if (first_answers_plain && replayed_header(a)) return "a first answer carries Idempotent-Replayed";
      if (e.row != 0) keep_first_bytes(w, e.row, a);
      return "";
    }
    case Expect::Kind::AlreadyProcessed: {
      if (a.status != 200) return "status " + std::to_string(a.status) + ", not 200";
      JsonText doc = parse_json(a.body);
      if (doc.fault != JsonFault::None || doc.canonical != R"({"status":"already processed"})") return "the body is not {\"status\":\"already processed\"}";
      return "";
    }
    case Expect::Kind::Rebuilt: {
      KeyRow* row = w.row(e.row);
      if (row == nullptr) return "the model lost the row (a bug of the model)";
      return check_outcome(a, w, row->stored, false);  // stage 4 renders snapshots anew: they may differ
    }
    case Expect::Kind::Replay: {
      KeyRow* row = w.row(e.row);
      if (row == nullptr) return "the model lost the row (a bug of the model)";
      if (header_value(a.headers, "Idempotent-Replayed") != "true") return "no Idempotent-Replayed: true";
      const StoredAnswer& s = row->stored;
      if (s.bytes_known) {
        if (a.status != s.status) return "status " + std::to_string(a.status) + ", not the first answer's " + std::to_string(s.status);
        if (header_value(a.headers, "Content-Type").value_or("") != s.content_type) return "Content-Type differs from the first answer's";
        if (a.body != s.body) return "the body differs from the first answer's bytes";
        return "";
      }
      std::string why = check_outcome(a, w, s, true);  // the first answer was lost: this one fixes the bytes
      if (why.empty()) keep_first_bytes(w, e.row, a);
      return why;
    }
    case Expect::Kind::AccountBalance: {
      if (a.status != 200) return "status " + std::to_string(a.status) + ", not 200";
      JsonText doc = parse_json(a.body);
      const Account* acc = w.bank.account(e.account);
      if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object || acc == nullptr) return "the body is not a JSON object";
      if (integer_member(doc.value, "id") != acc->id || integer_member(doc.value, "client_id") != acc->client ||
          string_member(doc.value, "currency") != acc->currency)
        return "id, client_id or currency differ from the account's";
      if (integer_member(doc.value, "balance") != acc->balance) return "balance is not " + std::to_string(acc->balance);
      return "";
    }
    case Expect::Kind::ClientCreated: {
      if (a.status != 201) return "status " + std::to_string(a.status) + ", not 201";
      JsonText doc = parse_json(a.body);
      if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object) return "the body is not a JSON object";
      auto id = integer_member(doc.value, "id");
      std::string token = string_member(doc.value, "token");
      if (!id || token.empty() || token[0] == '\x01') return "no id or token";
      for (const Client& c : w.bank.clients)
        if (c.id == *id || c.token == token) return "the id or token of another client";
      w.bank.clients.push_back(Client{*id, token});
      return "";
    }
    case Expect::Kind::AccountCreated: {
      if (a.status != 201) return "status " + std::to_string(a.status) + ", not 201";
      JsonText doc = parse_json(a.body);
      if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object) return "the body is not a JSON object";
      auto id = integer_member(doc.value, "id");
      if (!id || w.bank.account(*id) != nullptr) return "no id, or another account's";
      if (integer_member(doc.value, "client_id") != e.new_account_client || integer_member(doc.value, "balance") != e.new_account_balance ||
          string_member(doc.value, "currency") != e.new_account_currency)
        return "client_id, balance or currency differ from the request's";
      w.bank.accounts.push_back(Account{*id, e.new_account_client, e.new_account_balance, e.new_account_currency});
      return "";
    }
    case Expect::Kind::ClockMoved: {
      if (a.status != 200) return "status " + std::to_string(a.status) + ", not 200";
      JsonText doc = parse_json(a.body);
      if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object || !integer_member(doc.value, "now_ms")) return "no now_ms";
      return "";
    }
  }
  return "";
}

bool moves_again(const Expect& e, const Answer& a, const World& w) {
  if (!a.answered || a.status != 201) return false;
  const bool repeat = e.kind == Expect::Kind::AlreadyProcessed || e.kind == Expect::Kind::Rebuilt || e.kind == Expect::Kind::Replay;
  if (!repeat) return false;
  JsonText doc = parse_json(a.body);
  if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object) return false;
  auto id = integer_member(doc.value, "id");
  if (!id || *id < 1) return false;  // names no ledger entry: no move reported
  if (e.kind == Expect::Kind::AlreadyProcessed) return true;
  const KeyRow* row = const_cast<World&>(w).row(e.row);
  if (row == nullptr) return false;
  if (row->stored.status != 201) return true;
  const Entry& first = w.bank.ledger[static_cast<std::size_t>(row->stored.entry)];
  return first.id && *id != *first.id;
}

bool completed_without_outcome(const Expect& e, const Answer& a, bool keyed) {
  const bool repeat = e.kind == Expect::Kind::AlreadyProcessed || e.kind == Expect::Kind::Rebuilt || e.kind == Expect::Kind::Replay;
  const bool due_to_run = e.kind == Expect::Kind::Created || e.kind == Expect::Kind::Problem;
  if (!(repeat || (keyed && due_to_run)) || !a.answered || a.status != 201) return false;
  JsonText doc = parse_json(a.body);
  if (doc.fault != JsonFault::None || doc.value.kind != Json::Kind::Object) return false;
  auto id = integer_member(doc.value, "id");
  return !id || *id < 1;
}

bool refuses_same_body(const Expect& e, const Answer& a, World& w, int id) {
  const KeyRow* row = e.repeat_of != 0 ? w.row(e.repeat_of) : nullptr;
  const Flight* f = w.flight(id);
  const bool same_body = row != nullptr && f != nullptr && row->fingerprint == f->money.canonical;
  bool repeat = e.kind == Expect::Kind::AlreadyProcessed || e.kind == Expect::Kind::Rebuilt || e.kind == Expect::Kind::Replay ||
                (same_body && e.kind == Expect::Kind::Problem && e.status == 409);
  if (!repeat || !a.answered || a.status != 422) return false;
  JsonText doc = parse_json(a.body);
  return doc.fault == JsonFault::None && doc.value.kind == Json::Kind::Object &&
         string_member(doc.value, "type") == "/problems/idempotency-key-reused";
}

bool first_answer_marked_replayed(const Expect& e, const Answer& a, const World& w) {
  bool first = e.kind == Expect::Kind::Created || e.kind == Expect::Kind::Problem;
  // A request that runs only because of a lesson (M11, M16, M17): its own rule says more about a replay.
  bool by_lesson = std::string_view(e.rule) == "M11" || std::string_view(e.rule) == "M16" || std::string_view(e.rule) == "M17";
  return first && !by_lesson && a.answered && has(w.lessons, Lesson::StoredReplay) && replayed_header(a);
}

bool run_as_new_after_restart(const Expect& e, const Answer& a, World& w) {
  const KeyRow* row = e.repeat_of != 0 ? w.row(e.repeat_of) : nullptr;
  if (row == nullptr || row->epoch == w.restarts || !has(w.lessons, Lesson::DurableKeys) || !a.answered || replayed_header(a))
    return false;
  if (a.status == 201) return true;
  JsonText doc = parse_json(a.body);
  const std::string type = doc.fault == JsonFault::None && doc.value.kind == Json::Kind::Object ? string_member(doc.value, "type") : "";
  return type == "/problems/insufficient-funds" || type == "/problems/not-found" || type == "/problems/currency-mismatch" ||
         type == "/problems/balance-limit";
}

std::string describe(const Expect& e, const World& w) {
  auto types = [&] {
    std::string out;
    for (const std::string& t : e.problems) out += (out.empty() ? "" : " or ") + t;
    return out;
  };
  switch (e.kind) {
    case Expect::Kind::NoAnswer: return "no answer (the process is down or died at its crash point)";
    case Expect::Kind::Problem:
      return std::to_string(e.status) + " " + types() + (e.retry_after ? " with Retry-After" : "") +
             (e.www_authenticate ? " with WWW-Authenticate: Bearer" : "") + (e.may_be_lost ? ", or no answer" : "");
    case Expect::Kind::Created: {
      const Entry& entry = w.bank.ledger[e.entry];
      return "201 " + std::string(entry.request.endpoint == Endpoint::Transfers ? "transfer" : "payout") + " of " +
             std::to_string(entry.request.amount) + " from account " + std::to_string(entry.request.from) +
             ", from_balance_after " + std::to_string(entry.from_balance_after) + (e.may_be_lost ? ", or no answer" : "");
    }
    case Expect::Kind::AlreadyProcessed: return "200 {\"status\":\"already processed\"}";
    case Expect::Kind::Rebuilt: return "the first request's outcome again (its status, type or ledger entry)";
    case Expect::Kind::Replay: return "the first answer replayed byte for byte with Idempotent-Replayed: true";
    case Expect::Kind::AccountBalance: {
      const Account* a = w.bank.account(e.account);
      return "200 with balance " + std::to_string(a ? a->balance : 0);
    }
    case Expect::Kind::ClientCreated: return "201 with the new client's id and token";
    case Expect::Kind::AccountCreated: return "201 with the new account";
    case Expect::Kind::ClockMoved: return "200 with now_ms";
  }
  return "";
}

}  // namespace grader::model
