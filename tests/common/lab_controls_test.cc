// Lab-Fail: busy is armed for one request only, and only with --lab-controls. docs/reference/lab-controls.md "Lab controls".
#include <httplib.h>

#include <catch2/catch.hpp>

#include "common/lab_controls.h"

namespace {
httplib::Request request_with(const char* name, const char* value) {
  httplib::Request req;
  req.headers.emplace(name, value);
  return req;
}
}  // namespace

TEST_CASE("Lab-Fail: busy arms the money's failure for this request, and only with --lab-controls") {
  const auto busy = request_with("Lab-Fail", "busy");
  {
    auto fault = lab::LabControls(true).fault_if_asked(busy);
    CHECK(lab::money_fault_armed());
  }
  CHECK_FALSE(lab::money_fault_armed());  // the request ended: the thread's next request is not failed
  {
    auto fault = lab::LabControls(false).fault_if_asked(busy);
    CHECK_FALSE(lab::money_fault_armed());  // a production server never lets a client fail it
  }
  {
    auto fault = lab::LabControls(true).fault_if_asked(request_with("Lab-Fail", "slow"));
    CHECK_FALSE(lab::money_fault_armed());  // only "busy" is a fault
  }
}
