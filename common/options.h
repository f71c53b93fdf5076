// options.h: the command line every stage server shares. docs/reference/http-contract.md "The process".
//
//   <server> [--port P] [--db FILE] [--admin-token T] [--lab-controls] [--lease S] [--key-ttl S]
//            [--sync full|normal] [--host H] [--quiet] [--help]
//
//   LabOptions options = parse_options_or_exit(argc, argv, stage.summary);   // what lab.cc:run_stage does
//
// Each option's default is beside it in LabOptions; --help prints them all.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/db.h"

namespace lab {

struct LabOptions {
  std::string host = "127.0.0.1";            // loopback: a lab server is never exposed by default
  int port = 8080;                            // 0 picks a free port (printed when listening)
  std::string db_path = "idempotency-lab.db";
  std::string admin_token;                    // empty: a random one is made and printed at start-up
  bool lab_controls = false;                  // honour Lab-Delay-Ms, Lab-Crash, Lab-Fail, POST /admin/clock
  std::chrono::seconds lease{30};             // stage 4+: how long a claim may run before a retry takes it over
  std::chrono::seconds key_ttl{24 * 3600};    // stage 6: how long a key is remembered
  Sync sync = Sync::Full;                     // how a commit reaches the disk (db.h: Sync)
  bool quiet = false;                         // no per-request log lines
};

// Parses argv. --help prints the usage (with the stage's own summary) and exits 0; a bad option prints
// what is wrong and exits 2.
LabOptions parse_options_or_exit(int argc, char** argv, std::string_view summary);

}  // namespace lab
