// day_audit.cc: see day_audit.h. Per intent: the ledger entries its tag names, split into the day and the
// next day by the lab clock; the answers its sends got; then one rule per kind of damage.
#include "grader/day/day_audit.h"

#include <map>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <set>

namespace grader {
namespace {

bool success(const SentAttempt& a) { return a.status && *a.status >= 200 && *a.status < 300; }

// A final answer is one a client acts on. "Still running" (409 request-in-progress), "busy" (503) and a
// server error are invitations to ask again, not answers to the request.
bool final_answer(const SentAttempt& a) {
  if (!a.status || *a.status >= 500) return false;
  return !(*a.status == 409 && a.response_body.find("request-in-progress") != std::string::npos);
}

struct Expected {  // what one body asks the ledger for
  std::string kind;
  std::int64_t from = 0, to = 0;
  std::string destination;
  std::int64_t amount = 0;
  std::string currency;
};

bool matches(const LedgerEntry& e, const Expected& x) {
  if (e.kind != x.kind || e.from_account != x.from || e.amount != x.amount || e.currency != x.currency) return false;
  return x.kind == "transfer" ? e.to_account && *e.to_account == x.to : e.destination == x.destination;
}

}  // namespace

std::string_view column_name(Damage d) {
  switch (d) {
    case Damage::Duplicate: return "dup";
    case Damage::Lost: return "lost";
    case Damage::Mismatch: return "mismatch";
    case Damage::CrossClient: return "cross";
    case Damage::Inconsistent: return "inconsistent";
    case Damage::Misplaced: return "misplaced";
    case Damage::Conservation: return "conserv";
    case Damage::Expired: return "expired*";
    case Damage::Rekeyed: return "rekeyed*";
  }
  return "?";
}

std::string_view describe(Damage d) {
  switch (d) {
    case Damage::Duplicate: return "duplicate executions: money moved more than once for one intent";
    case Damage::Lost: return "lost executions: told success, but the request's money never moved";
    case Damage::Mismatch: return "silent mismatches: a changed request under an old key was told success, and never ran";
    case Damage::CrossClient:
      return "cross-client damage: another client's response, or a request that never ran because of another client's key";
    case Damage::Inconsistent: return "inconsistent repeats: one request got two different final answers";
    case Damage::Misplaced: return "money in the wrong place: an entry no request asked for, or a balance the ledger does not explain";
    case Damage::Conservation: return "conservation: balances plus payouts minus opening balances (minor units)";
    case Damage::Expired: return "policy, not damage: a retry after the key's retention executed again";
    case Damage::Rekeyed:
      return "client-made, not server damage: an intent sent under several keys moved money once per key";
  }
  return "?";
}

bool DayDamage::clean() const {
  for (Damage d : kAllDamage)
    if (is_server_damage(d) && count(d) != 0) return false;
  return true;
}

DayDamage audit_day(const DayLog& day, const DayReplay& replay) {
  DayDamage damage;
  auto add = [&](Damage d, const std::string& intent, std::int64_t n = 1) {
    auto k = static_cast<std::size_t>(d);
    damage.counts[k] += n;
    auto& ids = damage.intent_ids[k];
    if (!intent.empty() && (ids.empty() || ids.back() != intent)) ids.push_back(intent);
  };

  // Who owns each tag, and which clients use each key.
  std::map<std::string, const DayIntent*> owner_of_tag;
  std::map<std::string, std::set<std::string>> clients_of_key;
  for (const auto& i : day.intents) {
    if (i.body_of.empty()) owner_of_tag[replay.tag(i)] = &i;
    for (const auto& s : i.sends) clients_of_key[s.key.value_or(i.key)].insert(s.as_client.value_or(i.client));
  }
  auto tag_of_entry = [&](const LedgerEntry& e) -> std::string {
    auto hash = e.memo.rfind(" #");
    std::string tag = hash == std::string::npos ? e.memo : e.memo.substr(hash + 1);
    return owner_of_tag.count(tag) ? tag : "";
  };
  std::map<std::string, std::vector<const LedgerEntry*>> entries_of;  // by tag
  std::map<std::int64_t, const LedgerEntry*> entry_by_id;
  std::set<std::int64_t> our_accounts;
  for (const auto& [name, id] : replay.account_id) our_accounts.insert(id);
  for (const auto& e : replay.ledger) {
    entry_by_id[e.id] = &e;
    std::string tag = tag_of_entry(e);
    if (!tag.empty()) entries_of[tag].push_back(&e);
    else if (our_accounts.count(e.from_account) || (e.to_account && our_accounts.count(*e.to_account))) {
      add(Damage::Misplaced, "");
      damage.notes.push_back("ledger entry " + std::to_string(e.id) + " names no intent of the day (memo \"" + e.memo + "\")");
    }
  }
  std::map<std::size_t, std::vector<const SentAttempt*>> attempts_of;
  for (const auto& a : replay.attempts) attempts_of[a.intent].push_back(&a);

  for (std::size_t n = 0; n < day.intents.size(); ++n) {
    const DayIntent& intent = day.intents[n];
    const auto& sent = attempts_of[n];
    auto expected = [&](std::int64_t amount) {
      Expected x{intent.kind, replay.account_id.at(intent.from), 0, intent.destination, amount, intent.currency};
      if (intent.kind == "transfer")
        x.to = intent.to == kUnknownAccount ? (1LL << 53) - 1 : replay.account_id.at(intent.to);
      return x;
    };
    const bool copy = !intent.body_of.empty();  // its money, if any moved, is the original's
    const auto& mine = copy ? std::vector<const LedgerEntry*>{} : entries_of[replay.tag(intent)];
    auto moved = [&](std::int64_t amount) {
      for (const auto* e : mine)
        if (matches(*e, expected(amount))) return true;
      return false;
    };

    // Duplicate, Rekeyed and Expired: one movement per day at most; a second day's movement is the policy.
    // A client that sent one intent under k different keys that day asked for k requests: up to k
    // movements are its doing (Rekeyed, client-made: docs/learn/the-clients-side.md "A key per intent, made
    // and stored before the first send"), the ones beyond are the server's (Duplicate).
    std::int64_t today = 0, next_day = 0;
    for (const auto* e : mine) (replay.next_day_from_ms && e->created_at >= *replay.next_day_from_ms ? next_day : today)++;
    std::set<std::string> keys_today, keys_next_day;
    for (const auto& s : intent.sends) (s.next_day ? keys_next_day : keys_today).insert(s.key.value_or(intent.key));
    auto extra_movements = [&](std::int64_t moves, std::size_t keys) {
      if (moves <= 1) return;
      const auto asked = std::min<std::int64_t>(moves, static_cast<std::int64_t>(std::max<std::size_t>(keys, 1)));
      if (asked > 1) add(Damage::Rekeyed, intent.id, asked - 1);
      if (moves > asked) add(Damage::Duplicate, intent.id, moves - asked);
    };
    extra_movements(today, keys_today.size());
    extra_movements(next_day, keys_next_day.size());
    if (today >= 1 && next_day >= 1) add(Damage::Expired, intent.id);

    // Misplaced: an entry under the intent's tag that none of its sends asked for.
    for (const auto* e : mine) {
      bool asked = false;
      for (const auto* a : sent) asked = asked || matches(*e, expected(a->amount));
      if (!asked) {
        add(Damage::Misplaced, intent.id);
        damage.notes.push_back("ledger entry " + std::to_string(e->id) + " of " + intent.id + " is not what it asked for");
      }
    }

    bool lost = false, mismatch = false, cross = false;
    for (const auto* a : sent) {
      const bool changed = a->amount != intent.amount;
      if (success(*a) && !copy && !changed && !moved(a->amount)) lost = true;
      if (success(*a) && changed && !moved(a->amount)) mismatch = true;
      // Cross-client: the answer is a ledger entry of another client's intent.
      if (success(*a)) {
        try {
          auto j = nlohmann::json::parse(a->response_body);
          if (j.is_object() && j.contains("id") && j["id"].is_number_integer()) {
            auto it = entry_by_id.find(j["id"].get<std::int64_t>());
            if (it != entry_by_id.end()) {
              std::string tag = tag_of_entry(*it->second);
              if (!tag.empty() && owner_of_tag[tag]->client != a->client) cross = true;
            }
          }
        } catch (const nlohmann::json::exception&) {
        }
      }
    }
    // Cross-client: the key is also another client's, and this request never ran, though the server
    // answered it as done (2xx), as a reused key (422) or with a replay (of the other client's answer),
    // rather than refusing it for its own reasons.
    const std::string& key = intent.sends.front().key.value_or(intent.key);
    if (clients_of_key[key].size() > 1 && (copy || mine.empty()))
      for (const auto* a : sent)
        if (a->status && (success(*a) || *a->status == 422 || a->replayed)) cross = true;
    if (lost) add(Damage::Lost, intent.id);
    if (mismatch) add(Damage::Mismatch, intent.id);
    if (cross) add(Damage::CrossClient, intent.id);

    // Inconsistent: the same request (day, key, amount, sender) answered two different ways.
    std::map<std::tuple<bool, std::string, std::int64_t, std::string>, std::set<std::string>> answers;
    for (const auto* a : sent)
      if (final_answer(*a))
        answers[{intent.sends[a->send].next_day, a->key, a->amount, a->client}].insert(
            std::to_string(*a->status) + "\n" + a->content_type + "\n" + a->response_body);
    for (const auto& [request, distinct] : answers)
      if (distinct.size() > 1) {
        add(Damage::Inconsistent, intent.id);
        break;
      }
  }

  // Balances: each one is its opening plus what the ledger moved; and no money appeared or vanished.
  std::int64_t opening = 0, now = 0, paid_out = 0;
  std::map<std::int64_t, std::int64_t> expected_balance;
  for (const auto& a : day.accounts) {
    expected_balance[replay.account_id.at(a.name)] = a.balance;
    opening += a.balance;
  }
  for (const auto& e : replay.ledger) {
    if (expected_balance.count(e.from_account)) expected_balance[e.from_account] -= e.amount;
    if (e.to_account && expected_balance.count(*e.to_account)) expected_balance[*e.to_account] += e.amount;
    if (e.kind == "payout" && expected_balance.count(e.from_account)) paid_out += e.amount;
  }
  for (const auto& [id, balance] : replay.balances) {
    now += balance;
    if (expected_balance[id] != balance) {
      add(Damage::Misplaced, "");
      damage.notes.push_back("account " + std::to_string(id) + " holds " + std::to_string(balance) +
                             ", its opening balance and the ledger give " + std::to_string(expected_balance[id]));
    }
  }
  std::int64_t difference = now + paid_out - opening;
  if (difference != 0) {
    add(Damage::Conservation, "", difference < 0 ? -difference : difference);
    damage.notes.push_back("balances plus payouts are " + std::to_string(now + paid_out) + ", the opening balances " +
                           std::to_string(opening));
  }
  return damage;
}

}  // namespace grader
