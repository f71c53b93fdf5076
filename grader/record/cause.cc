// cause.cc: see cause.h.
#include "grader/record/cause.h"

#include <array>
#include <stdexcept>

namespace grader {
namespace {

struct CauseInfo {
  Cause cause;
  std::string_view name;
  std::string_view lacked_trait;  // a trait of stages/stage_servers.json "traits"
};

using enum Cause;

constexpr std::array kCauses = {
    CauseInfo{None, "none", ""},
    CauseInfo{KeysNotDurable, "keys-not-durable", "durable-keys"},
    CauseInfo{FingerprintUnstable, "fingerprint-unstable", "stable-fingerprint"},
    CauseInfo{NoLeaseOnLabClock, "no-lease-on-lab-clock", "lease"},
};

const CauseInfo& info(Cause cause) {
  for (const auto& c : kCauses)
    if (c.cause == cause) return c;
  throw std::logic_error("cause missing from kCauses");
}

}  // namespace

std::string_view lacked_trait(Cause cause) { return info(cause).lacked_trait; }
std::string_view name(Cause cause) { return info(cause).name; }

}  // namespace grader
