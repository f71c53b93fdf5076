// demo_stories_client.cc: the story of what only the client can do: keep one key for one intent. Told on
// stage 6, whose every check passes: the damage is the client's. docs/learn/the-clients-side.md "Why an
// SDK's automatic key is not enough".
#include <algorithm>
#include <cctype>
#include <thread>

#include "grader/demo/demo_stories.h"

namespace grader {
namespace {

// The first attempt outlasts the SDK's whole retry window: two retries, each after Retry-After (1 s).
constexpr const char* kSlowFirstAttemptMs = "5000";  // 2.2 s of retries and 2.8 s to spare on a loaded machine
constexpr int kSdkRetries = 2;
constexpr std::chrono::seconds kLongestRetryAfter{2};  // a story waits no longer, whatever the server says
constexpr std::chrono::milliseconds kSlowFinishPatience{10'000};

// An SDK's call as many ship: its own key, kept across its own retries of a 409, given up after them.
// Returns whether the call ended in a success; the sends are shown.
bool sdk_call(Scene& scene, const HttpRequest& request) {
  auto slow = request;
  slow.headers.emplace_back("Lab-Delay-Ms", kSlowFirstAttemptMs);
  scene.send_and_lose(slow, kGatewayTimeout);
  for (int retry = 1; retry <= kSdkRetries; ++retry) {
    Exchange x = scene.send(request);
    if (succeeded(x)) return true;
    const auto after = x.response ? x.response->header("Retry-After") : std::nullopt;
    const int seconds = after && !after->empty() && std::all_of(after->begin(), after->end(), [](unsigned char c) { return std::isdigit(c) != 0; })
                            ? std::stoi(after->substr(0, 3))
                            : 1;
    std::this_thread::sleep_for(std::min<std::chrono::seconds>(std::chrono::seconds(seconds), kLongestRetryAfter));
  }
  scene.note("The SDK gives up after " + std::to_string(kSdkRetries) + " retries and raises a ConflictError.");
  return false;
}

}  // namespace

Outcome sdk_gives_up(Scene& scene, const Outcome*) {
  auto [alice, from, to] = scene.client_with_two_accounts("alice", 10'000, "USD");
  const std::string body_42 = transfer_body(from.id, to.id, 1'500, "USD", "invoice 0042");
  scene.show_balances("before", {from, to});

  scene.step("Alice's app pays invoice 0042 through a payments SDK. The SDK makes a key for the call "
             "(sdk-call-1), keeps it for its own retries, and the server is slow today.");
  sdk_call(scene, scene.transfer(alice, "sdk-call-1", body_42));

  scene.step("The app only sees an error, so it does what apps do: it calls again. The SDK makes a new key "
             "for the new call (sdk-call-2).");
  scene.send(scene.transfer(alice, "sdk-call-2", body_42));
  scene.wait_for_moves("invoice 0042", 2, kSlowFinishPatience);
  const int rekeyed = scene.show_ledger("after", "invoice 0042");
  if (rekeyed > 1)
    scene.damage("Two transfers for one invoice. Stage 6 did its part: each key was new to it, so each was a "
                 "new request, as its policy says.");

  const std::string body_43 = transfer_body(from.id, to.id, 2'000, "USD", "invoice 0043");
  scene.step("Invoice 0043, paid the way that keeps the intent whole: the app makes the key once for the "
             "invoice (invoice-0043), stores it, and hands it to every call.");
  const auto pay_43 = scene.transfer(alice, "invoice-0043", body_43);
  sdk_call(scene, pay_43);
  scene.wait_for_moves("invoice 0043", 1, kSlowFinishPatience);
  scene.step("The app calls again, with the invoice's own key.");
  Exchange again = scene.send(pay_43);
  const int kept = scene.show_ledger("after", "invoice 0043");
  const bool replayed = again.response && again.response->header("Idempotent-Replayed").value_or("") == "true";
  if (kept == 1 && replayed) scene.good("One transfer: the second call got the first one's answer, replayed.");
  scene.show_balances("after", {from, to});
  scene.note("There is no later stage: a server cannot tell two keys of one intent from two intents. The fix is "
             "the client's:");
  scene.note("docs/learn/the-clients-side.md \"A key per intent, made and stored before the first send\".");
  return {rekeyed == 2 && kept == 1 && replayed,
          "with a new key per call the money moved " + times(rekeyed) + " for one invoice; with the invoice's "
          "own key, " + times(kept) + (replayed ? " (the second call replayed)" : " (the second call NOT replayed)")};
}

}  // namespace grader
