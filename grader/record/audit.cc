// audit.cc: see audit.h.
#include "grader/record/audit.h"

#include <set>

namespace grader {
namespace {

std::string ids_of(const std::vector<LedgerEntry>& entries) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::to_string(e.id);
  return out.empty() ? "none" : out;
}

std::string times(int n) { return std::to_string(n) + (n == 1 ? " time" : " times"); }

// A4's words: the count that moved, against the count expected ("never" only when nothing moved).
std::string moved_against_expected(int moved, int expected) {
  if (moved == 0) return "never moved money (expected " + times(expected) + ")";
  if (moved < expected) return "moved money " + times(moved) + " of the " + std::to_string(expected) + " expected";
  return "moved money " + times(moved) + ", not the " + std::to_string(expected) + " expected";
}

bool told_success(const Intent& intent, const std::vector<Event>& history) {
  for (const auto& e : history)
    if (e.intent == intent.id && e.type == EventType::Ok) return true;
  return false;
}

// A3: an observe right after an ok saw the ledger without the intent's entry.
bool success_seen_before_money(const Intent& intent, const std::vector<Event>& history) {
  for (const auto& e : history)
    if (e.intent == intent.id && e.type == EventType::Observe && e.ledger_entries == 0) return true;
  return false;
}

void check_entry_matches(const Intent& intent, const LedgerEntry& e, std::vector<Finding>& out) {
  bool transfer = intent.path == "/transfers";
  bool same = e.amount == intent.amount && e.from_account == intent.from && e.currency == intent.currency &&
              e.kind == (transfer ? "transfer" : "payout") &&
              (transfer ? e.to_account == intent.to : e.destination == intent.destination);
  if (!same)
    out.push_back({.anomaly = Anomaly::BalanceDrift,
                   .what = "A5: ledger entry " + std::to_string(e.id) + " for intent " + intent.id +
                           " is not what was asked: " + e.kind + " of " + std::to_string(e.amount) + " " + e.currency +
                           " from " + std::to_string(e.from_account),
                   .sent = intent.body,
                   .expected = "the entry moves exactly the request's amount between the request's accounts",
                   .intent = intent.id});
}

}  // namespace

std::vector<LedgerEntry> entries_of(const Intent& intent, const std::vector<LedgerEntry>& ledger) {
  std::vector<LedgerEntry> out;
  for (const auto& e : ledger)
    if (e.memo.find("#" + intent.tag) != std::string::npos) out.push_back(e);
  return out;
}

std::vector<Finding> audit(const std::deque<Intent>& intents, const std::deque<Account>& accounts,
                           const std::vector<Event>& history, const std::vector<LedgerEntry>& ledger,
                           const Balances& balances) {
  std::vector<Finding> out;
  std::set<std::int64_t> explained;
  for (const auto& intent : intents) {
    auto mine = entries_of(intent, ledger);
    for (const auto& e : mine) explained.insert(e.id);
    if (!intent.audited) continue;
    const int moved = static_cast<int>(mine.size());
    const bool success = told_success(intent, history);
    if (moved > 0 && intent.max_moves == 0)
      out.push_back({.anomaly = Anomaly::UnexplainedEntry,
                     .what = "A1: intent " + intent.id + " must not move money (it is invalid or refused) but did " +
                             "(ledger ids " + ids_of(mine) + ")",
                     .sent = intent.body,
                     .expected = "no ledger entry for it",
                     .intent = intent.id});
    else if (moved > intent.max_moves)
      out.push_back({.anomaly = Anomaly::DoubleApply,
                     .what = "A1: intent " + intent.id + " (key " + intent.key + ") moved money " +
                             std::to_string(moved) + " times (ledger ids " + ids_of(mine) + ")",
                     .sent = intent.body,
                     .expected = "at most " + std::to_string(intent.max_moves) + " ledger entry for it",
                     .intent = intent.id});
    if (success && moved == 0)
      out.push_back({.anomaly = Anomaly::LostWrite,
                     .what = "A2: intent " + intent.id + " was told success (2xx) but no ledger entry carries #" +
                             intent.tag,
                     .sent = intent.body,
                     .expected = "a success only after the money moved",
                     .intent = intent.id});
    if (success && moved > 0 && success_seen_before_money(intent, history))
      out.push_back({.anomaly = Anomaly::InFlightLie,
                     .what = "A3: intent " + intent.id +
                             " was told success while the ledger had no entry for it yet "
                             "(the money moved later, ledger ids " +
                             ids_of(mine) + ")",
                     .sent = intent.body,
                     .expected = "409 request-in-progress while the first request runs",
                     .intent = intent.id});
    if (intent.expect_moves && moved != *intent.expect_moves && moved <= intent.max_moves && !(success && moved == 0))
      out.push_back({.anomaly = moved < *intent.expect_moves ? Anomaly::NotExecuted : Anomaly::DoubleApply,
                     .what = "A4: intent " + intent.id + " " + moved_against_expected(moved, *intent.expect_moves) +
                             " (ledger ids " + ids_of(mine) + ")",
                     .sent = intent.body,
                     .expected = "exactly " + times(*intent.expect_moves),
                     .intent = intent.id});
    // A5 only where A1 found nothing: an extra entry from a changed body is already the finding.
    if (moved <= intent.max_moves)
      for (const auto& e : mine) check_entry_matches(intent, e, out);
  }

  std::map<std::int64_t, std::int64_t> expected;  // account -> opening + in - out, from the ledger
  std::int64_t opening = 0, now = 0, paid_out = 0;
  for (const auto& a : accounts) {
    expected[a.id] = a.opening;
    opening += a.opening;
  }
  for (const auto& e : ledger) {
    bool from_ours = expected.count(e.from_account) > 0;
    bool to_ours = e.to_account && expected.count(*e.to_account) > 0;
    if (!from_ours && !to_ours) continue;
    if (!explained.count(e.id))
      out.push_back({.anomaly = Anomaly::UnexplainedEntry,
                     .what = "B1: ledger entry " + std::to_string(e.id) + " (" + e.kind + " of " +
                             std::to_string(e.amount) + ", memo \"" + e.memo + "\") matches no request the grader sent",
                     .expected = "only the requests sent move money"});
    if (from_ours) expected[e.from_account] -= e.amount;
    if (to_ours) expected[*e.to_account] += e.amount;
    if (from_ours && e.kind == "payout") paid_out += e.amount;
    if (from_ours && !to_ours && e.kind == "transfer") paid_out += e.amount;  // left the world
  }
  for (const auto& a : accounts) {
    auto it = balances.find(a.id);
    if (it == balances.end()) continue;
    now += it->second;
    if (it->second != expected[a.id])
      out.push_back({.anomaly = Anomaly::BalanceDrift,
                     .what = "B2: account " + std::to_string(a.id) + " holds " + std::to_string(it->second) +
                             ", but its opening balance " + std::to_string(a.opening) + " and the ledger give " +
                             std::to_string(expected[a.id]),
                     .expected = "balance = opening + incoming - outgoing"});
  }
  if (balances.size() >= accounts.size() && now + paid_out != opening)
    out.push_back({.anomaly = Anomaly::BalanceDrift,
                   .what = "B3: balances " + std::to_string(now) + " + paid out " + std::to_string(paid_out) +
                           " != opening " + std::to_string(opening),
                   .expected = "money is conserved"});
  return out;
}

}  // namespace grader
