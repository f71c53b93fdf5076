// anomaly_test.cc: an anomaly's own line (AnomalyInfo::because, printed under each finding of it) holds for
// every finding of that anomaly, not for the one case its author had in mind (issue 50, "the generic line
// contradicts the finding above it"). The three lines below each said something one of their findings denied.
#include <catch2/catch.hpp>

#include <string>

#include "grader/record/anomaly.h"

using grader::Anomaly;
using grader::info;

namespace {
std::string because(Anomaly a) { return std::string(info(a).because); }
}  // namespace

TEST_CASE("anomaly lines: stuck-key holds for a first request that never finished, as for one that did") {
  // A key stays 409 after its request finished (the completion never written), or while nothing runs any more
  // (a lease that never ends): the line was "a request that has finished still answers 409" for both.
  const std::string line = because(Anomaly::StuckKey);
  CHECK(line.find("had finished or its lease had run out") != std::string::npos);
  CHECK(line.find("has finished still answers") == std::string::npos);
}

TEST_CASE("anomaly lines: expired-key-honoured claims no unbounded storage of a server whose keys do expire") {
  // A server whose keys expire on real time, not the lab clock, keeps its storage bounded: "storage grows
  // forever" was untrue of it. What every such finding shows is a key honoured past its TTL on the lab clock.
  const std::string line = because(Anomaly::ExpiredKeyHonoured);
  CHECK(line.find("on the lab clock") != std::string::npos);
  CHECK(line.find("grows forever") == std::string::npos);
}

TEST_CASE("anomaly lines: fingerprint-too-strict does not say the JSON was written differently under identical bytes") {
  // A server that refuses every repeat 422 refuses identical bytes too: the JSON written differently is only
  // one way to get there.
  const std::string line = because(Anomaly::FingerprintTooStrict);
  CHECK(line.find("perhaps the same JSON written differently") != std::string::npos);
  CHECK(line.find("the same request was refused as another") != std::string::npos);
}
