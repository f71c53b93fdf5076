// checks_stage3.cc: stage 3, the fingerprint. LAB.md "Stage 3".
//
// A key names one request body. The same key with another amount or recipient is a client bug and gets
// 422; the same JSON written differently (members reordered, other whitespace, other escapes) is the same
// request, which only a canonical form (RFC 8785) sees.
#include <functional>

#include "grader/check_helpers.h"

namespace grader {
namespace {

void changed_body(CheckRun& run, bool change_amount) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Account& elsewhere = run.world().account(*alice, 1'000);
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  run.expect_status(run.settle(pay.attempt()), pay.attempt(), {201});
  std::string body = change_amount ? transfer_body(pay.from, pay.to, pay.amount + 1, pay.currency, pay.memo)
                                   : transfer_body(pay.from, elsewhere.id, pay.amount, pay.currency, pay.memo);
  Attempt other = pay.attempt().with_body(body);
  Exchange x = run.settle(other, Settle{.nothing_running = true});
  run.expect_status(x, other, {422}, "idempotency-key-reused", anomaly_of_wrong_answer(x, Anomaly::FingerprintIgnored));
}

// Every member of the body is part of the request, not only the amount and the recipient: a fingerprint
// that leaves one out (or folds case) answers a changed request as a repeat.
void changed_other_fields(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Account& other_source = run.world().account(*alice, from->opening);
  struct Change {
    const char* what;
    std::function<std::string(const Intent&)> body;
  };
  const std::vector<Change> transfer_changes = {
      {"memo edited", [](const Intent& i) { return transfer_body(i.from, i.to, i.amount, i.currency, i.memo + " (edited)"); }},
      {"memo in upper case",
       [](const Intent& i) {
         std::string upper = i.memo;
         for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
         return transfer_body(i.from, i.to, i.amount, i.currency, upper);
       }},
      {"another currency", [](const Intent& i) { return transfer_body(i.from, i.to, i.amount, i.currency == "CHF" ? "NOK" : "CHF", i.memo); }},
      {"another source account",
       [&](const Intent& i) { return transfer_body(other_source.id, i.to, i.amount, i.currency, i.memo); }},
  };
  for (const auto& change : transfer_changes) {
    Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    pay.expect_moves = 1;
    run.expect_status(run.settle(pay.attempt()), pay.attempt(), {201});
    Attempt other = pay.attempt().with_body(change.body(pay));
    Exchange x = run.settle(other, Settle{.nothing_running = true});
    if (!run.expect_status(x, other, {422}, "idempotency-key-reused", anomaly_of_wrong_answer(x, Anomaly::FingerprintIgnored)))
      run.findings().back().what += std::string(" (") + change.what + ")";
  }
  Intent& payout = run.world().payout(*alice, *from, affordable_amount(run, *from));
  payout.expect_moves = 1;
  run.expect_status(run.settle(payout.attempt()), payout.attempt(), {201});
  Attempt elsewhere = payout.attempt().with_body(
      payout_body(payout.from, payout.destination + "9", payout.amount, payout.currency, payout.memo));
  Exchange moved = run.settle(elsewhere, Settle{.nothing_running = true});
  if (!run.expect_status(moved, elsewhere, {422}, "idempotency-key-reused",
                         anomaly_of_wrong_answer(moved, Anomaly::FingerprintIgnored)))
    run.findings().back().what += " (payout to another destination)";
}

// The same transfer, written three other ways.
std::string reordered(const Intent& i) {
  return "{\"memo\":" + nlohmann::json(i.memo).dump() + ",\"currency\":\"" + i.currency +
         "\",\"amount\":" + std::to_string(i.amount) + ",\"to_account\":" + std::to_string(i.to) +
         ",\"from_account\":" + std::to_string(i.from) + "}";
}
std::string respaced(const Intent& i) {
  return "{\n  \"from_account\" : " + std::to_string(i.from) + ",\n  \"to_account\"\t: " + std::to_string(i.to) +
         ",\n  \"amount\" : " + std::to_string(i.amount) + ",\n  \"currency\" : \"" + i.currency +
         "\",\n  \"memo\" : " + nlohmann::json(i.memo).dump() + "\n}\n";
}
std::string escaped(const Intent& i, const std::string& memo_escaped) {
  return "{\"from_account\":" + std::to_string(i.from) + ",\"to_account\":" + std::to_string(i.to) +
         ",\"amount\":" + std::to_string(i.amount) + ",\"currency\":\"" + i.currency + "\",\"memo\":\"" + memo_escaped +
         "\"}";
}

void equivalent_body(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  for (int variant = 0; variant < 3; ++variant) {
    Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    // A memo with "é" and "/", which JSON may also write as \u00e9 and \/.
    const std::string tag_part = " #" + pay.tag;
    pay.memo = "caf\xc3\xa9/bar" + tag_part;
    pay.body = transfer_body(pay.from, pay.to, pay.amount, pay.currency, pay.memo);
    pay.expect_moves = 1;
    run.expect_status(run.settle(pay.attempt()), pay.attempt(), {201});
    std::string body = variant == 0   ? reordered(pay)
                       : variant == 1 ? respaced(pay)
                                      : escaped(pay, "caf\\u00e9\\/bar" + tag_part);
    Attempt same = pay.attempt().with_body(body);
    const char* how[] = {"members reordered", "whitespace added", "\\u00e9 for \xc3\xa9 and \\/ for /"};
    if (!run.expect_status(run.settle(same), same, {200, 201}, "", Anomaly::FingerprintTooStrict))
      run.findings().back().what += std::string(" (") + how[variant] + ")";
  }
}

}  // namespace

std::vector<Check> stage3_checks() {
  const std::string section = "Stage 3: the canonical fingerprint";
  return {
      {"stage3.changed-amount", 3, "the same key with another amount gets 422 and moves nothing more", section,
       "store a fingerprint of the body with the key; compare it on every repeat", Needs::Nothing,
       [](CheckRun& r) { changed_body(r, true); }},
      {"stage3.changed-recipient", 3, "the same key with another recipient gets 422 and moves nothing more", section,
       "store a fingerprint of the body with the key; compare it on every repeat", Needs::Nothing,
       [](CheckRun& r) { changed_body(r, false); }},
      {"stage3.changed-other-fields", 3,
       "the same key with another memo, currency, source or payout destination gets 422 and moves nothing more",
       section, "fingerprint the whole canonical body, every member as sent", Needs::Nothing, changed_other_fields},
      {"stage3.equivalent-body", 3, "the same body reordered, re-spaced or escaped differently is the same request",
       section, "fingerprint the RFC 8785 canonical form, not the raw bytes", Needs::Nothing, equivalent_body},
  };
}

}  // namespace grader
