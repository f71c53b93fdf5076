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
  std::optional<std::int64_t> amount;
  bool success() const { return done && done->type == EventType::Ok; }
  bool replayed() const {
    return done && done->response && done->response->header("Idempotent-Replayed").value_or("") == "true";
  }
  bool may_have_moved_money() const {  // a fresh 2xx, or no answer at all
    return !done || done->type == EventType::Unknown || (success() && !replayed() && done->response->status == 201);
  }
};

struct Entry {
  std::int64_t id = 0, amount = 0;
  std::string memo;
};

std::vector<Entry> entries_of(const TableView& ledger) {
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < ledger.columns.size(); ++i) at[ledger.columns[i]] = i;
  std::vector<Entry> out;
  if (!at.count("id") || !at.count("amount") || !at.count("memo")) return out;
  for (const auto& row : ledger.rows) {
    const auto &id = row[at["id"]], &amount = row[at["amount"]], &memo = row[at["memo"]];
    if (id.is_number_integer() && amount.is_number_integer() && memo.is_string())
      out.push_back({id.get<std::int64_t>(), amount.get<std::int64_t>(), memo.get<std::string>()});
  }
  return out;
}

std::string ids(const std::vector<const Entry*>& entries) {
  std::string out;
  for (const auto* e : entries) out += (out.empty() ? "" : ", ") + std::to_string(e->id);
  return out;
}

}  // namespace

std::vector<grader::TimelineMark> find_violations(const std::vector<Event>& events, const TableView& ledger) {
  // The attempts of each key, in the order they went out.
  std::map<std::int64_t, Attempt> by_op;
  std::vector<std::string> keys;
  std::map<std::string, std::vector<Attempt*>> of_key;
  std::map<std::int64_t, double> ended_at;  // when the server ended a request whose answer was lost
  for (const auto& e : events) {
    if (e.type == EventType::Invoke && e.key) {
      Attempt& a = by_op[e.op];
      a.invoke = &e;
      auto body = nlohmann::json::parse(e.request.body, nullptr, false);
      if (body.is_object() && body.contains("memo") && body["memo"].is_string()) a.memo = body["memo"];
      if (body.is_object() && body.contains("amount") && body["amount"].is_number_integer()) a.amount = body["amount"];
      for (const auto& [name, value] : e.request.headers)
        if (name == "Authorization") a.who = value;
      if (!of_key.count(*e.key)) keys.push_back(*e.key);
      of_key[*e.key].push_back(&a);
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
  for (const auto& key : keys) {
    const auto& attempts = of_key[key];
    std::set<std::string> memos;
    for (const auto* a : attempts)
      if (!a->memo.empty()) memos.insert(a->memo);
    std::vector<const Entry*> moved;
    for (const auto& e : entries)
      if (memos.count(e.memo)) moved.push_back(&e);

    if (moved.size() > 1)
      for (const auto* a : attempts)
        if (a->may_have_moved_money())
          mark(*a, Anomaly::DoubleApply, "key " + key + ": the money moved " + std::to_string(moved.size()) +
                                             " times (ledger ids " + ids(moved) + ")");

    for (const auto* a : attempts) {
      if (!a->success() || !a->amount) continue;
      bool its_money = false;
      for (const auto* e : moved) its_money = its_money || (e->memo == a->memo && e->amount == *a->amount);
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

    // A replay of another client's answer.
    for (const auto* a : attempts)
      if (a->replayed() && a != first && a->who != first->who)
        mark(*a, Anomaly::ScopeLeak, "key " + key + " was first sent by another client: this answer is theirs");
  }
  return marks;
}

}  // namespace playground
