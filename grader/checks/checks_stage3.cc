// checks_stage3.cc: stage 3, the fingerprint. docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
//
// A key names one request body. The same key with another amount, recipient or metadata value is a client
// bug and gets 422; the same JSON written differently (members reordered, other whitespace, other escapes,
// 1.5e3 for 1500, 1E-1 for 0.1) is the same request, which only a canonical form (RFC 8785) sees: a
// fingerprint of the raw bytes fails all of it, one of a re-serialization with sorted keys (Python's
// json.dumps(sort_keys=True), nlohmann's dump()) fails the numbers.
#include <functional>

#include "grader/checks/check_helpers.h"

namespace grader {
namespace {

// The body with a `metadata` member added at the end (bodies from transfer_body end with their '}').
std::string with_metadata(std::string body, const std::string& metadata) {
  body.pop_back();
  return body + ",\"metadata\":" + metadata + "}";
}

enum class Change { Amount, Recipient, Metadata };

void changed_body(CheckRun& run, Change change) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Account& elsewhere = run.world().account(*alice, 1'000);
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  const std::string order = R"({"order":"A-17","rate":)";
  if (change == Change::Metadata) pay.body = with_metadata(pay.body, order + "0.1}");
  pay.expect_moves = 1;
  run.expect_status(run.settle(pay.attempt()), pay.attempt(), {201});
  std::string body =
      change == Change::Amount      ? transfer_body(pay.from, pay.to, pay.amount + 1, pay.currency, pay.memo)
      : change == Change::Recipient ? transfer_body(pay.from, elsewhere.id, pay.amount, pay.currency, pay.memo)
                                    : with_metadata(transfer_body(pay.from, pay.to, pay.amount, pay.currency, pay.memo),
                                                    order + "0.2}");
  Attempt other = pay.attempt().with_body(body);
  Exchange x = run.settle(other, Settle{.nothing_running = true});
  if (!run.expect_status(x, other, {422}, "idempotency-key-reused", anomaly_of_wrong_answer(x, Anomaly::FingerprintIgnored)))
    return;
  // A 422 is right only if it is about the change: the very first body, sent again, is still a repeat. (A
  // server that refuses every repeat 422 would pass on the changed body alone.)
  const Attempt same = pay.attempt();
  run.expect_status(run.settle(same), same, {200, 201}, "", Anomaly::FingerprintTooStrict);
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
      run.add_to_last_finding(std::string(" (") + change.what + ")");
  }
  Intent& payout = run.world().payout(*alice, *from, affordable_amount(run, *from));
  payout.expect_moves = 1;
  run.expect_status(run.settle(payout.attempt()), payout.attempt(), {201});
  Attempt elsewhere = payout.attempt().with_body(
      payout_body(payout.from, payout.destination + "9", payout.amount, payout.currency, payout.memo));
  Exchange moved = run.settle(elsewhere, Settle{.nothing_running = true});
  if (!run.expect_status(moved, elsewhere, {422}, "idempotency-key-reused",
                         anomaly_of_wrong_answer(moved, Anomaly::FingerprintIgnored)))
    run.add_to_last_finding(" (payout to another destination)");
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

// 1234 as 1.234e3, 7 as 7e0: the same integer in scientific notation.
std::string scientific(std::int64_t n) {
  const std::string digits = std::to_string(n);
  const std::string exponent = "e" + std::to_string(digits.size() - 1);
  return digits.size() == 1 ? digits + exponent : digits.substr(0, 1) + "." + digits.substr(1) + exponent;
}

// The integer fields as floats: an amount in scientific notation, the accounts as N.0 and N0E-1.
std::string numbers_respelled(const Intent& i) {
  return "{\"from_account\":" + std::to_string(i.from) + ".0,\"to_account\":" + std::to_string(i.to) +
         "0E-1,\"amount\":" + scientific(i.amount) + ",\"currency\":\"" + i.currency +
         "\",\"memo\":" + nlohmann::json(i.memo).dump() + "}";
}

// Metadata a sort_keys fingerprint gets wrong (3 and 3.0; 1e21 and 1000000000000000000000, which Python keeps
// as an int) beside what every parser gets right (0.1 and 1e-1, \u escapes), with keys outside the Basic
// Multilingual Plane (U+1F600, two UTF-16 code units) and near its top (U+FB01), whose RFC 8785 order is not
// their code point order.
const std::string kMetadataFirst = R"({"rate":0.1,"limit":1e21,"items":3,"\ud83d\ude00":"smile","ﬁ":"caf\u00e9"})";
const std::string kMetadataRespelled[] = {
    "{\"\xef\xac\x81\":\"caf\xc3\xa9\",\"\xf0\x9f\x98\x80\":\"smile\",\"items\":3.0,\"limit\":1000000000000000000000,"
    "\"rate\":1e-1}",
    R"({"items":0.3e1,"\ud83d\ude00":"smile","rate":1E-1,"limit":1E+21,"\ufb01":"café"})",
};

// What a server that refuses one of equivalent_body's spellings should read.
constexpr const char* kValidSpellingsHint =
    "every one of these spellings is a valid body: members in any order, any whitespace and JSON escape, an "
    "integral amount as 1500, 1500.0 or 1.5e3; validate the parsed value, not the text (docs/reference/http-contract.md \"Client endpoints (client token)"
    "endpoints\", body rules)";

void equivalent_body(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  const char* how[] = {"members reordered", "whitespace added", "\\u00e9 for \xc3\xa9 and \\/ for /",
                       "integer fields written as floats, e.g. 1.5e3 for 1500 and 7.0 for 7",
                       "metadata written differently: 3.0 for 3, 1000000000000000000000 for 1e21, 1e-1 for 0.1, "
                       "keys in another order and escaped",
                       "metadata written differently: 0.3e1 for 3, 1E+21 for 1e21, 1E-1 for 0.1, escapes"};
  for (int variant = 0; variant < 6; ++variant) {
    Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    // A memo with "é" and "/", which JSON may also write as \u00e9 and \/.
    const std::string tag_part = " #" + pay.tag;
    pay.memo = "caf\xc3\xa9/bar" + tag_part;
    pay.body = transfer_body(pay.from, pay.to, pay.amount, pay.currency, pay.memo);
    const bool has_metadata = variant >= 4;
    if (has_metadata) pay.body = with_metadata(pay.body, kMetadataFirst);
    pay.expect_moves = 1;
    run.expect_status(run.settle(pay.attempt()), pay.attempt(), {201});
    // First the very same bytes: a server that refuses even those has one cause for every variant below,
    // named once (check_run.cc:report_identical_refused), not six times.
    if (variant == 0 && !run.expect_status(run.settle(pay.attempt()), pay.attempt(), {200, 201})) return;
    std::string body = variant == 0   ? reordered(pay)
                       : variant == 1 ? respaced(pay)
                       : variant == 2 ? escaped(pay, "caf\\u00e9\\/bar" + tag_part)
                       : variant == 3 ? numbers_respelled(pay)
                                      : with_metadata(transfer_body(pay.from, pay.to, pay.amount, pay.currency, pay.memo),
                                                      kMetadataRespelled[variant - 4]);
    Attempt same = pay.attempt().with_body(body);
    Exchange x = run.settle(same);
    // A 400 to one of these bodies is the validation's fault, before any fingerprint is taken (a server
    // that refuses 1.5e3 as an amount); only a refusal as another request (422) is the fingerprint's.
    if (fail_if_refused_valid(run, same, x, how[variant], kValidSpellingsHint)) continue;
    if (!run.expect_status(x, same, {200, 201}, "", Anomaly::FingerprintTooStrict))
      run.add_to_last_finding(std::string(" (") + how[variant] + ")");
  }
}

// The Content-Type a repeat may carry: application/json with parameters, in another letter case. The media
// type says how to read the body, it is not part of the request (docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint").
const char* const kJsonMediaTypes[] = {
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    "Application/JSON",
    "APPLICATION/JSON ; charset=\"utf-8\"; profile=lab",
};

// The same body under another spelling of application/json: replayed (or 409 while the first runs, which
// settle() waits out), never 422 and never a second move. A fingerprint over headers and body fails it.
void media_type_spelling(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  for (const char* media_type : kJsonMediaTypes) {
    Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    pay.expect_moves = 1;
    run.expect_status(run.settle(pay.attempt()), pay.attempt(), {201});
    Attempt same = pay.attempt().with_content_type(media_type);
    Exchange x = run.settle(same);
    const std::string what = std::string("Content-Type: ") + media_type;
    if (fail_if_refused_valid(run, same, x, what,
                              "application/json is matched without its parameters and in any letter case "
                              "(docs/reference/http-contract.md \"Status codes and their order\")"))
      continue;
    if (status_of(x) == 422) {
      // Refused for the Content-Type's spelling, or as every repeat is? The very first send again tells: if it
      // is refused too, the finding says so (an identical retry refused), and not the spelling.
      const Attempt identical = pay.attempt();
      if (!run.expect_status(run.settle(identical), identical, {200, 201}, "", Anomaly::FingerprintTooStrict)) continue;
    }
    if (!run.expect_status(x, same, {200, 201}, "", Anomaly::FingerprintTooStrict))
      run.add_to_last_finding(" (the same body with " + what + ")");
  }
}

}  // namespace

std::vector<Check> stage3_checks() {
  const DocRef chapter = stage_chapter(3);
  return {
      {.name = "stage3.changed-amount",
       .stage = 3,
       .title = "the same key with another amount gets 422 and moves nothing more",
       .teaches = chapter,
       .hint = "store a fingerprint of the body with the key; compare it on every repeat",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { changed_body(r, Change::Amount); }},
      {.name = "stage3.changed-recipient",
       .stage = 3,
       .title = "the same key with another recipient gets 422 and moves nothing more",
       .teaches = chapter,
       .hint = "store a fingerprint of the body with the key; compare it on every repeat",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { changed_body(r, Change::Recipient); }},
      {.name = "stage3.changed-other-fields",
       .stage = 3,
       .title =
           "the same key with another memo, currency, source or payout destination gets 422 and moves nothing more",
       .teaches = chapter,
       .hint = "fingerprint the whole canonical body, every member as sent",
       .needs = Needs::Nothing,
       .run = changed_other_fields},
      {.name = "stage3.changed-metadata",
       .stage = 3,
       .title = "the same key with another metadata value gets 422 and moves nothing more",
       .teaches = chapter,
       .hint = "fingerprint the whole body, metadata included, not only the fields the bank reads",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { changed_body(r, Change::Metadata); }},
      {.name = "stage3.equivalent-body",
       .stage = 3,
       .title = "the same body reordered, re-spaced, escaped or with numbers spelled differently is the same request",
       .teaches = chapter,
       .hint = "fingerprint the RFC 8785 canonical form, not the raw bytes nor a re-serialization with sorted keys",
       .needs = Needs::Nothing,
       .run = equivalent_body},
      {.name = "stage3.media-type-spelling",
       .stage = 3,
       .title = "the same body with Content-Type parameters or in another letter case is the same request",
       .teaches = chapter,
       .hint = "fingerprint the canonical body only: no header, the Content-Type included, is part of it",
       .needs = Needs::Nothing,
       .run = media_type_spelling},
  };
}

}  // namespace grader
