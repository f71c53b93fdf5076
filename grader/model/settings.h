// settings.h: what the model is told about the server it judges: the flags it was started with and how
// exactly the observer knows the lab clock. docs/reference/http-contract.md "The process".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace grader::model {

struct Settings {
  std::string admin_token;
  bool lab_controls = true;               // --lab-controls: Lab-* headers and POST /admin/clock honoured
  std::int64_t lease_seconds = 30;        // --lease (stage 4 on); the contract's default
  std::int64_t key_ttl_seconds = 86400;   // --key-ttl (stage 6); the contract's default
  // The lab clock is real time plus an offset; the server reads it up to this long after the observer's
  // real_ms (loaded machine), so a deadline this close to "now" may fall either way.
  std::int64_t clock_slack_ms = 1000;
  // Worlds kept at most. Past it the model keeps the first ones and says so (Judgement::capped): it may
  // then refuse an answer a dropped world allowed. Measured (2026-12-07, the lessons half done of lessons.h
  // added): a crash after-commit-2, a restart, two requests in flight and a busy 503 leave 1,344 worlds in
  // the model of stage 1 and 672 in stage 2's, about 85 ms of judging in all; 256 dropped some of both.
  std::size_t max_worlds = 4096;
};

}  // namespace grader::model
