// violations.cc: see violations.h.
#include "playground/violations.h"

#include <map>
#include <optional>
#include <set>

namespace playground {
namespace {

using grader::Anomaly;
using grader::Event;
using grader::EventType;

struct Attempt {  // one op: its invoke and, once it came, its completion
  const Event* invoke = nullptr;
  const Event* done = nullptr;
  std::string memo, who;  // the body's memo; the Authorization value as the history keeps it (a token prefix)
  std::optional<std::int64_t> amount, from;
  bool success() const { return done && done->type == EventType::Ok; }
  bool replayed() const {
    return done && done->response && done->response->header("Idempotent-Replayed").value_or("") == "true";
  }
  bool may_have_moved_money() const {  // a fresh 2xx, or no answer at all
    return !done || done->type == EventType::Unknown || (success() && !replayed() && done->response->status == 201);
  }
};

struct Entry {
  std::int64_t id = 0, amount = 0, from = 0;
  std::string memo;
};

std::vector<Entry> entries_of(const TableView& ledger) {
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < ledger.columns.size(); ++i) at[ledger.columns[i]] = i;
  std::vector<Entry> out;
  if (!at.count("id") || !at.count("amount") || !at.count("memo") || !at.count("from_account")) return out;
  for (const auto& row : ledger.rows) {
    const auto &id = row[at["id"]], &amount = row[at["amount"]], &memo = row[at["memo"]], &from = row[at["from_account"]];
    if (id.is_number_integer() && amount.is_number_integer() && memo.is_string() && from.is_number_integer())
      out.push_back({id.get<std::int64_t>(), amount.get<std::int64_t>(), from.get<std::int64_t>(), memo.get<std::string>()});
  }
  return out;
}

std::string ids(const std::vector<const Entry*>& entries) {
  std::string out;
  for (const auto* e : entries) out += (out.empty() ? "" : ", ") + std::to_string(e->id);
  return out;
}

}  // namespace

std::vector<grader::TimelineMark> find_violations(const std::vector<Event>& events, const TableView& ledger,
                                                  const grader::History::Dropped& dropped) {
  // The attempts of each key, in the order they went out.
  std::map<std::int64_t, Attempt> by_op;
  std::vector<std::string> keys;
  std::map<std::string, std::vector<Attempt*>> of_key;
  std::map<std::int64_t, double> ended_at;  // when the server ended a request whose answer was lost
  std::map<std::string, std::string> first_sender;  // key string -> the client that sent it first
  for (const auto& e : events) {
    if (e.type == EventType::Invoke && e.key) {
      Attempt& a = by_op[e.op];
      a.invoke = &e;
      auto body = nlohmann::json::parse(e.request.body, nullptr, false);
      if (body.is_object() && body.contains("memo") && body["memo"].is_string()) a.memo = body["memo"];
      if (body.is_object() && body.contains("amount") && body["amount"].is_number_integer()) a.amount = body["amount"];
      if (body.is_object() && body.contains("from_account") && body["from_account"].is_number_integer())
        a.from = body["from_account"];
      for (const auto& [name, value] : e.request.headers)
        if (name == "Authorization") a.who = value;
      // A key belongs to its client (stage 6's scope): two clients' equal key strings are two intentions.
      const std::string scoped = a.who + "\n" + *e.key;
      if (!of_key.count(scoped)) keys.push_back(scoped);
      of_key[scoped].push_back(&a);
      if (!first_sender.count(*e.key)) first_sender[*e.key] = a.who;
    } else if (e.type == EventType::Ended) {
      ended_at[e.op] = e.t_ms;
    } else if ((e.type == EventType::Ok || e.type == EventType::Fail || e.type == EventType::Unknown) &&
               by_op.count(e.op)) {
      by_op[e.op].done = &e;
    }
  }
  const std::vector<Entry> entries = entries_of(ledger);

  std::vector<grader::TimelineMark> marks;
  auto mark = [&](const Attempt& a, Anomaly anomaly, const std::string& text) {
    marks.push_back({a.invoke->op, std::string(grader::name(anomaly)), text, grader::info(anomaly).fixed_by});
  };
  for (const auto& scoped : keys) {
    const auto& attempts = of_key[scoped];
    const std::string& key = *attempts.front()->invoke->key;
    std::set<std::pair<std::string, std::int64_t>> memos;  // (memo, paying account) of the key's requests
    for (const auto* a : attempts)
      if (!a->memo.empty() && a->from) memos.insert({a->memo, *a->from});
    std::vector<const Entry*> moved;
    for (const auto& e : entries)
      if (memos.count({e.memo, e.from})) moved.push_back(&e);

    // The same request (memo, paying account, amount) moved more than once under the key.
    for (const auto* a : attempts) {
      if (!a->may_have_moved_money() || !a->amount) continue;
      std::vector<const Entry*> same;
      for (const auto* e : moved)
        if (e->memo == a->memo && e->from == a->from && e->amount == *a->amount) same.push_back(e);
      if (same.size() > 1)
        mark(*a, Anomaly::DoubleApply, "key " + key + ": the money moved " + std::to_string(same.size()) +
                                           " times for one request (ledger ids " + ids(same) + ")");
    }

    // The rest needs all of the key's attempts, and so all of its entries (see violations.h).
    if (dropped.every_key || dropped.keys.count(key)) continue;

    for (const auto* a : attempts) {
      if (!a->success() || !a->amount) continue;
      bool its_money = false;
      for (const auto* e : moved) its_money = its_money || (e->memo == a->memo && e->amount == *a->amount && e->from == a->from);
      if (its_money) continue;
      if (moved.empty())
        mark(*a, Anomaly::LostWrite, "told " + std::to_string(a->done->response->status) + " for key " + key +
                                         ", and no ledger entry carries its memo: the money never moved");
      else
        mark(*a, Anomaly::FingerprintIgnored, "told " + std::to_string(a->done->response->status) + " for " +
                                                  std::to_string(*a->amount) + " under key " + key +
                                                  "; what moved under it was another amount (ledger ids " + ids(moved) + ")");
    }

    // Told "done" (a 2xx that is neither new nor a replay) while the key's first attempt was still out.
    const Attempt* first = attempts.front();
    for (const auto* a : attempts) {
      if (a == first || !a->success() || a->replayed() || a->done->response->status == 201) continue;
      double first_end = first->done && first->done->type != EventType::Unknown ? first->done->t_ms : 1e300;
      if (auto it = ended_at.find(first->invoke->op); it != ended_at.end()) first_end = it->second;
      if (a->done->t_ms < first_end && moved.size() <= 1)
        mark(*a, Anomaly::InFlightLie, "told " + std::to_string(a->done->response->status) + " for key " + key +
                                           " while the first request with it was still running");
    }

    // One movement, two different 2xx bodies for the same request: the second answer was rebuilt.
    const Attempt* answered = nullptr;
    for (const auto* a : attempts) {
      if (!a->success() || moved.size() != 1) continue;
      if (!answered) {
        answered = a;
        continue;
      }
      if (a->who == answered->who && a->memo == answered->memo && a->amount == answered->amount &&
          a->done->response->body != answered->done->response->body)
        mark(*a, Anomaly::ReplayMismatch, "key " + key + ": this answer differs from op " +
                                              std::to_string(answered->invoke->op) + "'s for the one transfer");
    }

    // A replay of another client's answer: the key string was first another client's, and this client
    // never got a fresh answer under it.
    if (first_sender[key] != first->who) {
      bool own_answer = false;
      for (const auto* a : attempts) own_answer = own_answer || (a->success() && !a->replayed());
      for (const auto* a : attempts)
        if (a->replayed() && !own_answer)
          mark(*a, Anomaly::ScopeLeak, "key " + key + " was first sent by another client: this answer is theirs");
    }
  }
  return marks;
}

}  // namespace playground
