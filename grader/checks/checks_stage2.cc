// checks_stage2.cc: stage 2, the unique key. docs/reference/http-contract.md "The Idempotency-Key header", docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint".
//
// A key must be present and well-formed; a request refused as invalid does not use up its key; and one
// intent moves money once however its copies arrive: after a lost response, or all at the same moment.
// Judged by the money, not by the shape of the repeat's body, so later stages (409, replays) pass too.
#include <functional>

#include "grader/checks/check_helpers.h"

namespace grader {
namespace {

// Bursts of 16 in stage2.simultaneous-16, each on its own key (see simultaneous_identical).
constexpr int kRaceBursts = 24;

struct KeyCase {
  const char* what;
  std::optional<std::string> header;  // nullopt: no header
  const char* problem;
  bool second_line = false;        // send the header twice
  const char* also_accepted = "";  // a second problem type the contract tolerates here
};

std::vector<KeyCase> key_cases(const std::string& key) {
  return {
      {"no Idempotency-Key header", std::nullopt, "idempotency-key-missing"},
      // RFC 9110 allows an empty field value, but many HTTP libraries (cpp-httplib 0.11 among them) drop
      // such a line before the application sees it, which then reads as no header at all.
      {"an empty header line", "", "idempotency-key-empty", false, "idempotency-key-missing"},
      {"an empty sf-string \"\"", "\"\"", "idempotency-key-empty"},
      {"an unterminated sf-string", "\"" + key, "idempotency-key-malformed"},
      {"an escape other than \\\" and \\\\", "\"" + key + "\\n\"", "idempotency-key-malformed"},
      {"a non-ASCII character", "\"" + key + "\xc3\xa9\"", "idempotency-key-malformed"},
      {"a list of two keys", "\"" + key + "\", \"" + key + "x\"", "idempotency-key-list"},
      {"a key with parameters", "\"" + key + "\";x=1", "idempotency-key-parameters"},
      {"two Idempotency-Key lines", "\"" + key + "\"", "idempotency-key-repeated-header", true},
      {"a key of 256 characters", "\"" + key + std::string(256 - key.size(), 'k') + "\"", "idempotency-key-too-long"},
  };
}

void key_required(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  for (const auto& c : key_cases(run.world().new_key())) {
    Intent& i = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    i.max_moves = 0;
    Attempt a = i.attempt().with_key_header(c.header);
    if (c.second_line) a = a.with_header("Idempotency-Key", "\"" + i.key + "2\"");
    Exchange x = run.settle(a);
    bool tolerated =
        *c.also_accepted && x.response && x.response->status == 400 && problem_type_of(*x.response) == c.also_accepted;
    if (!tolerated && !run.expect_status(x, a, {400}, c.problem))
      run.add_to_last_finding(std::string(" (") + c.what + ")");
  }
}

// The longest valid key, 255 characters once unquoted, with both sf-string escapes in it: a server that
// counts the escaped length (261 here) or refuses \" and \\ turns away a valid key.
void longest_key_accepted(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  std::string key = pay.key + "-\"quoted\"-back\\slash-";
  key += std::string(255 - key.size(), 'k');
  std::string header = "\"";
  for (char c : key) header += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  header += "\"";
  Attempt a = pay.attempt().with_key_header(header);
  run.expect_status(run.settle(a), a, {201});
  Exchange again = run.settle(a);  // and it is a key like any other: the repeat does not move money again
  run.expect_status(again, a, {200, 201});
}

void rejected_body_keeps_key(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  // The same key first with a body that fails validation: amount as a string.
  std::string bad = pay.body;
  auto at = bad.find("\"amount\":");
  bad.replace(at, 9 + std::to_string(pay.amount).size(), "\"amount\":\"" + std::to_string(pay.amount) + "\"");
  Attempt invalid = pay.attempt().with_body(bad);
  run.expect_status(run.settle(invalid), invalid, {400}, "invalid-field");
  Attempt fixed = pay.attempt();
  Exchange x = run.settle(fixed);
  if (!is_success(x) || run.moves(pay) == 0)
    run.fail(Anomaly::BurnedKey, "the corrected request with the same key did not move the money", &fixed, &x,
             "201: the 400 did not store the key");
}

// Where a server that compares keys inexactly should look.
constexpr const char* kExactKeyHint =
    "compare keys exactly, byte for byte after unquoting: letter case and spaces inside the quotes are part of "
    "the key (docs/reference/http-contract.md \"The Idempotency-Key header\")";

// Keys are compared exactly: a key that differs from another only in letter case, or in spaces inside the
// quotes, is another key, so its request is its own and moves money once (a server that folds or trims
// keys answers it for the first key: 422 from stage 3 on, a replay or a 200 without money before).
void keys_compared_exactly(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  struct Variant {
    const char* what;
    std::function<std::string(const std::string&)> other_key;
  };
  const std::vector<Variant> variants = {
      {"in letter case",
       [](const std::string& key) {
         std::string upper = key;
         for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
         return upper;
       }},
      {"in spaces inside the quotes", [](const std::string& key) { return " " + key + "  "; }},
  };
  for (const auto& variant : variants) {
    Intent& first = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    first.expect_moves = 1;
    run.expect_status(run.settle(first.attempt()), first.attempt(), {201});
    Intent& second = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    second.key = variant.other_key(first.key);   // at most one move (the auditor); none is judged here
    const Attempt a = second.attempt();
    Exchange x = run.settle(a, Settle{.nothing_running = true});
    const std::string which = std::string("a key that differs from another only ") + variant.what;
    if (fail_if_refused_valid(run, a, x, which, kExactKeyHint)) continue;
    const bool reused = status_of(x) == 422 && problem_type_of(*x.response) == "idempotency-key-reused";
    if (reused || (is_success(x) && run.moves(second) == 0)) {
      run.fail(Anomaly::KeyConflated,
               "intent " + second.id + ": its key " + second.key_header() + " differs from intent " + first.id +
                   "'s " + first.key_header() + " only " + variant.what + ", and was answered as that key",
               &a, &x, "201: another key, its own request");
      continue;
    }
    if (!is_success(x)) run.expect_status(x, a, {201});
  }
  // A key of spaces only is a key: 1 to 255 printable ASCII characters, the space among them. It cannot be
  // unique to the run, so on a server that outlives the run (--url) an earlier run may have used it: any
  // answer but a refusal of the key is right, and the check does not count this intent's money.
  Intent& spaces = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  spaces.key = "   ";
  spaces.audited = false;
  const Attempt a = spaces.attempt();
  Exchange x = run.settle(a, Settle{.nothing_running = true});
  if (!fail_if_refused_valid(run, a, x, "the key \"   \", three spaces", kExactKeyHint))
    run.expect_status(x, a, {200, 201, 422});
}

// The contract's order (docs/reference/http-contract.md "Status codes and their order"): who is asking (401), then the key (400
// idempotency-key-*), then the body (415, 413, 400). A request wrong in several ways gets the first
// failing step's answer: a server that validates the body before the key answers the body's problem.
void checks_in_order(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  struct OrderCase {
    const char* what;
    std::function<Attempt(const Intent&)> make;
    int status;
    const char* problem;
  };
  const std::string long_key = "\"" + std::string(256, 'k') + "\"";
  const std::vector<OrderCase> cases = {
      {"no token, no key and a body that is not JSON",
       [](const Intent& i) { return i.attempt().as("").with_key_header(std::nullopt).with_body("{"); }, 401,
       "unauthorized"},
      {"an unknown token and a malformed key",
       [](const Intent& i) { return i.attempt().as("tok_unknown").with_key_header("\"" + i.key); }, 401,
       "unauthorized"},
      {"no key and an amount written as a string",
       [](const Intent& i) {
         std::string body = i.body;
         const std::string amount = "\"amount\":" + std::to_string(i.amount);
         body.replace(body.find(amount), amount.size(), "\"amount\":\"" + std::to_string(i.amount) + "\"");
         return i.attempt().with_key_header(std::nullopt).with_body(body);
       },
       400, "idempotency-key-missing"},
      {"a list of keys and a body that is not application/json",
       [](const Intent& i) {
         return i.attempt().with_key_header(i.key_header() + ", \"" + i.key + "x\"").with_content_type("text/plain");
       },
       400, "idempotency-key-list"},
      {"a key of 256 characters and a body over 16 KiB",
       [&long_key](const Intent& i) {
         return i.attempt().with_key_header(long_key).with_body(i.body + std::string(kBodyLimitBytes, ' '));
       },
       400, "idempotency-key-too-long"},
      {"an empty key and a body cut short",
       [](const Intent& i) { return i.attempt().with_key_header("\"\"").with_body(i.body.substr(0, i.body.size() / 2)); },
       400, "idempotency-key-empty"},
  };
  // Which lesson a wrong order is: tried, not guessed. A server that refuses a valid body sent without a key
  // has the key's step, so answering another step first is the contract's order; one that takes it has no
  // key step at all (stage 2's lesson, which stage2.key-required names). Its money is not this check's.
  Intent& keyless = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  keyless.audited = false;
  const Exchange k = run.settle(keyless.attempt().with_key_header(std::nullopt));
  const bool has_key_step = status_of(k) == 400 && problem_type_of(*k.response) == "idempotency-key-missing";
  for (const auto& c : cases) {
    Intent& i = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
    i.max_moves = 0;
    const Attempt a = c.make(i);
    if (!run.expect_status(run.settle(a), a, {c.status}, c.problem)) {
      run.add_to_last_finding(std::string(" (") + c.what + ")");
      if (has_key_step) run.give_last_finding_lesson(0, kOrderHint);
    }
  }
}

void lost_response_retry(CheckRun& run) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  run.send(pay.attempt().lost());  // the client never sees this answer
  Exchange x = run.settle(pay.attempt());
  run.expect_status(x, pay.attempt(), {200, 201});
}

// One burst: `copies` identical requests of one intent, all at once; each copy is then settled.
void burst_of_one_intent(CheckRun& run, int copies, int delay_ms) {
  auto [alice, from, to] = client_with_two_accounts(run, "alice");
  Intent& pay = run.world().transfer(*alice, *from, *to, affordable_amount(run, *from));
  pay.expect_moves = 1;
  Attempt copy = pay.attempt();
  if (delay_ms > 0) copy = copy.with_header(kLabDelay, std::to_string(delay_ms));
  auto results = run.send_simultaneously(std::vector<Attempt>(copies, copy));
  for (auto& x : results) {
    if (!x.response || x.response->status == 409 || x.response->status == 503) x = run.settle(pay.attempt());
    run.expect_status(x, pay.attempt(), {200, 201});
  }
}

// The first burst's delay holds its winner between the key check and the money, where a race opened by
// the server's own code lives (wrong turn 2a sleeps between its SELECT and its INSERT). The bursts after
// it have no delay: a SELECT-then-INSERT race is then the microseconds between one copy's SELECT and
// another's COMMIT. Measured on a 2-core machine against the mutant select-then-insert: about half of
// the bursts moved money twice (232 of 480 over 20 seeds), so one burst misses it half the time, and
// the 23 bursts without delay miss it with odds of about (1/2)^23; even at 1 burst in 4 they would miss
// it once in 700 runs (docs/teach/grader.md "How it observes").
void simultaneous_identical(CheckRun& run, int copies, int bursts) {
  burst_of_one_intent(run, copies, kBurstDelayMs);
  for (int n = 1; n < bursts; ++n) burst_of_one_intent(run, copies, 0);
}

}  // namespace

std::vector<Check> stage2_checks() {
  const DocRef chapter = stage_chapter(2);
  return {
      {.name = "stage2.key-required",
       .stage = 2,
       .title = "a missing, empty or malformed Idempotency-Key gets its 400 and moves nothing",
       .teaches = {"docs/reference/http-contract.md", "The Idempotency-Key header"},
       .hint = "parse the header as an sf-string before anything else (after auth)",
       .needs = Needs::Nothing,
       .run = key_required},
      {.name = "stage2.longest-key",
       .stage = 2,
       .title = "a key of 255 characters with \\\" and \\\\ escapes is accepted, and is one key",
       .teaches = {"docs/reference/http-contract.md", "The Idempotency-Key header"},
       .hint = "unquote the sf-string first; the limit is 255 characters after unquoting",
       .needs = Needs::Nothing,
       .run = longest_key_accepted},
      {.name = "stage2.keys-compared-exactly",
       .stage = 2,
       .title = "keys that differ only in letter case or spaces are two keys, and a key of spaces is a key",
       .teaches = {"docs/reference/http-contract.md", "The Idempotency-Key header"},
       .hint = "compare keys exactly after unquoting: do not fold their case or trim them",
       .needs = Needs::Nothing,
       .run = keys_compared_exactly},
      {.name = "stage2.checks-in-order",
       .stage = 2,
       .title = "401 comes before the key's 400, and the key's 400 before the body's 415, 413 or 400",
       .teaches = {"docs/reference/http-contract.md", "Status codes and their order"},
       .hint = "authenticate first, then parse the Idempotency-Key, then validate the body",
       .needs = Needs::Nothing,
       .run = checks_in_order},
      {.name = "stage2.rejected-body-keeps-key",
       .stage = 2,
       .title = "a 400 body does not burn its key",
       .teaches = {"docs/reference/http-contract.md", "Status codes and their order"},
       .hint = "validate the body before the key is stored",
       .needs = Needs::Nothing,
       .run = rejected_body_keeps_key},
      {.name = "stage2.lost-response-retry",
       .stage = 2,
       .title = "a retry after a lost response moves money once",
       .teaches = chapter,
       .hint = "store the key so a repeat finds it; a repeat must not execute again",
       .needs = Needs::Nothing,
       .run = lost_response_retry},
      {.name = "stage2.simultaneous-2",
       .stage = 2,
       .title = "2 simultaneous identical requests move money once",
       .teaches = chapter,
       .hint = "let the UNIQUE constraint decide who is first, not a SELECT before the INSERT",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { simultaneous_identical(r, 2, 1); }},
      {.name = "stage2.simultaneous-16",
       .stage = 2,
       .title = "16 simultaneous identical requests move money once, in each of 24 bursts",
       .teaches = chapter,
       .hint = "let the UNIQUE constraint decide who is first, not a SELECT before the INSERT",
       .needs = Needs::Nothing,
       .run = [](CheckRun& r) { simultaneous_identical(r, 16, kRaceBursts); }},
  };
}

}  // namespace grader
