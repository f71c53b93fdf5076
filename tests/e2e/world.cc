// world.cc: see world.h.
#include "tests/e2e/world.h"

#include <stdexcept>
#include <thread>

namespace lab::testing {

namespace {
constexpr int kCrashExitCode = 86;   // docs/reference/lab-controls.md "Lab controls": what Lab-Crash exits with
}  // namespace

OtherClient World::other_client(const std::string& name, std::int64_t opening) const {
  LabClient client = admin.create_client(name);
  std::int64_t pay_from = admin.create_account(client.id, opening);
  std::int64_t pay_into = admin.create_account(client.id, 0);
  return OtherClient{client, pay_from, pay_into};
}

Reply World::send_slowly_while(const std::string& key, const std::string& raw_body, int delay_ms,
                               const std::function<void()>& meanwhile) const {
  const std::int64_t claimed = server.key_rows() + 1;
  Reply slow;
  std::thread first([&] { slow = send(key, raw_body, {{"Lab-Delay-Ms", std::to_string(delay_ms)}}); });
  try {
    server.wait_for_key_rows(claimed);   // the first request has claimed its key
    meanwhile();
  } catch (...) {
    first.join();   // a std::thread must not be destroyed while it runs
    throw;
  }
  first.join();
  return slow;
}

InFlightRepeat World::repeat_while_first_runs(const std::string& key, const std::string& raw_body,
                                              int delay_ms) const {
  InFlightRepeat seen;
  seen.first = send_slowly_while(key, raw_body, delay_ms, [&] {
    seen.repeat = send(key, raw_body);
    seen.transfers_when_answered = transfers();
  });
  return seen;
}

void World::crash_and_restart(const std::string& key, const std::string& raw_body, const std::string& crash_point) {
  const int status = send(key, raw_body, {{"Lab-Crash", crash_point}}).status;
  const int exit_code = server.wait_for_exit();
  if (status != 0 || exit_code != kCrashExitCode)
    throw std::runtime_error("Lab-Crash: " + crash_point + " should end the server without a response (exit " +
                             std::to_string(kCrashExitCode) + "); got status " + std::to_string(status) +
                             " and exit " + std::to_string(exit_code));
  server.restart();
}

}  // namespace lab::testing
