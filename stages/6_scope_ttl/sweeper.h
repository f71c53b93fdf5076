// sweeper.h: deletes expired idempotency keys in the background. docs/learn/stage-6-scope-ttl.md "Stage 6: scope and retention".
//
//   lab.background_tasks.emplace_back(run_sweeper, keys, std::cref(lab.clock));
//
// Expiry is enforced twice: claim() ignores an expired row of its own scope (so correctness never waits
// for the sweeper), and the sweeper deletes all expired rows in batches (so the table does not grow
// without bound with keys nobody repeats).
#pragma once

#include <chrono>
#include <stop_token>

#include "common/lab_clock.h"
#include "key_table.h"

inline constexpr auto kSweepInterval = std::chrono::seconds(1);   // real time between sweeps
inline constexpr int kSweepBatch = 500;   // rows per transaction: short write locks, handlers stay fast

void run_sweeper(std::stop_token stop, KeyTable keys, const lab::LabClock& clock);
