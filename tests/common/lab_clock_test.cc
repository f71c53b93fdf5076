// lab_clock_test.cc: the lab clock follows real time, moves forward on request, and survives a restart.
#include "common/lab_clock.h"

#include <catch2/catch.hpp>

#include <chrono>

#include "tests/common/temp_dir.h"

using namespace lab;

TEST_CASE("the lab clock starts at real time", "[clock]") {
  testing::TempDir dir;
  Database db(dir.file("clock.db"));
  LabClock clock(db);
  auto real = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch()).count();
  CHECK(std::abs(clock.now_ms() - real) < 1000);
}

TEST_CASE("advancing the lab clock moves now forward by exactly that much", "[clock]") {
  testing::TempDir dir;
  Database db(dir.file("clock.db"));
  LabClock clock(db);
  auto before = clock.now_ms();
  auto after = clock.advance(3'600'000);
  CHECK(after - before >= 3'600'000);
  CHECK(after - before < 3'601'000);
  CHECK(clock.offset_ms() == 3'600'000);
}

TEST_CASE("the lab clock's offset survives a restart on the same database", "[clock]") {
  testing::TempDir dir;
  {
    Database db(dir.file("clock.db"));
    LabClock(db).advance(86'400'000);
  }
  Database reopened(dir.file("clock.db"));
  CHECK(LabClock(reopened).offset_ms() == 86'400'000);
}

TEST_CASE("the lab clock never runs backwards", "[clock]") {
  testing::TempDir dir;
  Database db(dir.file("clock.db"));
  LabClock clock(db);
  CHECK_THROWS_AS(clock.advance(-1), std::invalid_argument);
}
