// parallel.h: runs independent pieces of work on a few threads. Used by the matrix and the mutants.
//
//   for_each_in_parallel(columns.size(), jobs, [&](std::size_t i) { grade(columns[i]); });
//
// Grading a server is mostly waiting (a slow first request, a lease, a restart), not computing, so
// several servers graded side by side take about the time of the slowest, even on two cores. Each piece
// must catch its own exceptions and write only its own slot of the results.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace grader {

// The matrix and the mutants run this many servers at once unless --jobs says otherwise.
constexpr int kDefaultJobs = 6;

template <typename Work>
void for_each_in_parallel(std::size_t count, int jobs, Work work) {
  std::atomic<std::size_t> next{0};
  std::vector<std::jthread> threads;
  const auto threads_needed = std::min(count, static_cast<std::size_t>(std::max(jobs, 1)));
  for (std::size_t t = 0; t < threads_needed; ++t)
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < count; i = next++) work(i);
    });
}  // the jthreads join here

}  // namespace grader
