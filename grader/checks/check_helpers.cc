// check_helpers.cc: see check_helpers.h.
#include "grader/checks/check_helpers.h"

#include "grader/record/truth.h"

namespace grader {

// Opening balances, in minor units: large enough for a few dozen transfers, random so every run differs.
constexpr std::int64_t kMinOpening = 20'000;
constexpr std::int64_t kMaxOpening = 90'000;

TwoAccounts client_with_two_accounts(CheckRun& run, const std::string& role) {
  auto& w = run.world();
  ClientInfo& owner = w.client(role);
  Account& from = account_with_random_opening(run, owner);
  Account& to = account_with_random_opening(run, owner);
  return {&owner, &from, &to};
}

Account& account_with_random_opening(CheckRun& run, const ClientInfo& owner) {
  return run.world().account(owner, run.rng().between(kMinOpening, kMaxOpening));
}

std::int64_t affordable_amount(CheckRun& run, const Account& from) { return run.rng().between(100, from.opening / 40); }

bool is_success(const Exchange& x) { return x.response && x.response->status / 100 == 2; }
bool says_replayed(const Exchange& x, const std::string& header) {
  return x.response && x.response->header(header).value_or("") == "true";
}

void expect_not_marked_replay(CheckRun& run, const Attempt& attempt, const Exchange& first) {
  if (!says_replayed(first)) return;
  run.fail(Anomaly::ReplayMismatch, "a first answer says Idempotent-Replayed: true, but nothing was replayed",
           &attempt, &first, "the first answer without an Idempotent-Replayed header");
  // The header is the replay's lesson, whichever later check saw it: its callers have ruled out another
  // request's answer (a scope leak), so the body is this request's own.
  run.give_last_finding_lesson(lesson_teaching("stored-replay"),
                               "send Idempotent-Replayed: true only where a stored response is replayed");
}

bool is_in_progress(const Exchange& x) {
  return x.response && x.response->status == 409 && problem_type_of(*x.response) == "request-in-progress";
}

std::optional<std::int64_t> retry_after_seconds(const Exchange& x) {
  auto value = x.response ? x.response->header("Retry-After") : std::nullopt;
  // At most 9 digits: a delay of 30 years is already absurd, and the number cannot overflow.
  if (!value || value->empty() || value->size() > 9) return std::nullopt;
  for (char c : *value)
    if (c < '0' || c > '9') return std::nullopt;
  return std::stoll(*value);
}

std::future<Exchange> send_in_background(CheckRun& run, const Attempt& attempt) {
  return std::async(std::launch::async, [&run, attempt] { return run.send(attempt); });
}
int status_of(const Exchange& x) { return x.response ? x.response->status : 0; }

RepeatTiming timing_of(const Exchange& repeat, const Exchange& first) {
  const bool after_first = repeat.response && !is_in_progress(repeat) && first.response &&
                           first.done_ns <= repeat.done_ns + kAnswerOrderSlackNs;
  if (!after_first) return RepeatTiming::InFlight;
  return first.done_ns <= repeat.sent_ns ? RepeatTiming::SentLate : RepeatTiming::AnsweredLate;
}

bool with_growing_delay(CheckRun& run, const std::function<RepeatTiming(int times)>& round) {
  int answered_late = 0;
  for (int n = 0; n < kInFlightRounds; ++n) {
    const RepeatTiming timing = round(1 << n);
    if (timing == RepeatTiming::InFlight) return true;
    answered_late += timing == RepeatTiming::AnsweredLate;
  }
  if (answered_late == kInFlightRounds) return false;
  run.add_caveat("in " + std::to_string(kInFlightRounds) + " rounds, the first request sleeping twice as long in " +
                 "each, it had always finished before the repeat came: the machine was too slow to see a repeat " +
                 "in flight, so nothing was judged");
  return true;
}

SlowFirst send_slow_first(CheckRun& run, const TwoAccounts& accounts, int delay_ms) {
  Intent& pay = run.world().transfer(*accounts.owner, *accounts.from, *accounts.to,
                                     affordable_amount(run, *accounts.from));
  pay.expect_moves = 1;
  Attempt sent = pay.attempt().with_header(kLabDelay, std::to_string(delay_ms));
  auto first = send_in_background(run, sent);
  return {pay, std::move(sent), std::move(first)};
}

void fail_held_repeat(CheckRun& run, const std::string& should) {
  run.fail(Anomaly::WrongStatus,
           "in " + std::to_string(kInFlightRounds) + " rounds, the first request sleeping twice as long in each, " +
               "the repeat sent during its sleep was answered only after it had finished: the server holds a " +
               "repeat until the first request ends (a lock held for the whole request?), where " + should);
}

std::optional<std::int64_t> entry_id(const Exchange& x) {
  if (!x.response) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(x.response->body);
    if (j.is_object() && j.contains("id") && j["id"].is_number_integer()) return j["id"].get<std::int64_t>();
  } catch (const nlohmann::json::exception&) {
  }
  return std::nullopt;
}

}  // namespace grader

namespace grader {

Anomaly anomaly_of_wrong_answer(const Exchange& x, Anomaly if_success) {
  if (!x.response) return Anomaly::NoResponse;
  if (x.response->status >= 200 && x.response->status < 300) return if_success;
  if (is_in_progress(x)) return Anomaly::StuckKey;
  return Anomaly::WrongStatus;
}

bool fail_if_refused_valid(CheckRun& run, const Attempt& attempt, const Exchange& x, const std::string& what,
                           const std::string& hint) {
  const int status = status_of(x);
  // The refusals of the contract's validation steps (docs/reference/http-contract.md "Status codes and their order", 2 and 3); a 409
  // or 422 is the idempotency step's answer, another fault.
  if (status != 400 && status != 413 && status != 415) return false;
  std::string type = problem_type_of(*x.response);
  run.add_finding({.anomaly = Anomaly::WrongStatus,
                   .what = (attempt.intent ? "intent " + attempt.intent->id + ": " : "") + "answered " +
                           std::to_string(status) + (type.empty() ? "" : " " + type) + " to a valid request (" +
                           what + "): the server's validation refused it",
                   .sent = show_request(attempt),
                   .received = show_exchange(x),
                   .expected = "the request accepted as valid",
                   .hint = hint,
                   .intent = attempt.intent ? attempt.intent->id : ""});
  return true;
}

Anomaly anomaly_of_early_answer(CheckRun& run, const Exchange& x, const Intent& intent) {
  if (!is_success(x)) return Anomaly::WrongStatus;
  auto seen = run.observe(intent);
  return seen == 0 ? Anomaly::InFlightLie : seen > 1 ? Anomaly::DoubleApply : Anomaly::WrongStatus;
}

bool expect_held(CheckRun& run, const Exchange& x, const Attempt& repeat, Anomaly anomaly, const std::string& when) {
  const std::size_t said = run.findings().size();
  if (run.expect_status(x, repeat, {409}, "request-in-progress", anomaly)) return true;
  if (run.findings().size() == said) return false;
  run.add_to_last_finding(" (a repeat while the first request still ran, " + when + ")");
  run.give_last_finding_lesson(4, kClaimHoldsHint);
  return false;
}

}  // namespace grader
