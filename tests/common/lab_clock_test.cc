// lab_clock_test.cc: the lab clock follows real time, moves forward on request, survives a restart, and
// refuses to run so far ahead that its arithmetic could overflow.
#include "common/lab_clock.h"

#include <catch2/catch.hpp>

#include <chrono>

#include "tests/common/temp_dir.h"

using namespace lab;

namespace {

// A lab clock on a fresh database file.
struct ClockFixture {
  testing::TempDir dir;
  Database db{dir.file("clock.db")};
  LabClock clock{db};
};

}  // namespace

TEST_CASE_METHOD(ClockFixture, "the lab clock starts at real time", "[clock]") {
  auto real = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch()).count();
  CHECK(std::abs(clock.now_ms() - real) < 1000);
}

TEST_CASE_METHOD(ClockFixture, "advancing the lab clock moves now forward by exactly that much", "[clock]") {
  auto before = clock.now_ms();
  auto after = clock.advance(3'600'000);
  REQUIRE(after);
  CHECK(*after - before >= 3'600'000);
  CHECK(*after - before < 3'601'000);
  CHECK(clock.offset_ms() == 3'600'000);
}

TEST_CASE("the lab clock's offset survives a restart on the same database", "[clock]") {
  testing::TempDir dir;
  {
    Database db(dir.file("clock.db"));
    CHECK(LabClock(db).advance(86'400'000));
  }
  Database reopened(dir.file("clock.db"));
  CHECK(LabClock(reopened).offset_ms() == 86'400'000);
}

TEST_CASE_METHOD(ClockFixture, "the lab clock never runs backwards", "[clock]") {
  CHECK_THROWS_AS(clock.advance(-1), std::invalid_argument);
}

TEST_CASE_METHOD(ClockFixture, "the lab clock runs at most kMaxOffsetMs ahead, so now_ms cannot overflow",
                 "[clock]") {
  // Steps of the largest size POST /admin/clock accepts: without the bound, 1,024 of them would pass 2^63.
  std::int64_t steps = 0;
  while (clock.advance(LabClock::kMaxAdvanceMs)) ++steps;
  CHECK(steps == LabClock::kMaxOffsetMs / LabClock::kMaxAdvanceMs);
  const std::int64_t offset = clock.offset_ms();
  CHECK(offset <= LabClock::kMaxOffsetMs);
  CHECK(offset > LabClock::kMaxOffsetMs - LabClock::kMaxAdvanceMs);
  CHECK_FALSE(clock.advance(LabClock::kMaxOffsetMs - offset + 1));   // refused: nothing moves
  CHECK(clock.offset_ms() == offset);
  CHECK(clock.advance(LabClock::kMaxOffsetMs - offset));             // up to the bound exactly is fine
  CHECK(clock.offset_ms() == LabClock::kMaxOffsetMs);
  CHECK(clock.now_ms() > LabClock::kMaxOffsetMs);                    // real time plus the offset, exact
}
