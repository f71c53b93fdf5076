// http_burst.cc: see http_burst.h.
#include "tests/e2e/http_burst.h"

#include <barrier>
#include <thread>

namespace lab::testing {

std::vector<Reply> burst(int count, const std::function<Reply(int index)>& request) {
  std::vector<Reply> replies(count);
  std::barrier start(count);
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      replies[i] = request(i);
    });
  for (auto& t : threads) t.join();
  return replies;
}

}  // namespace lab::testing
