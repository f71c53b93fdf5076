// load_audit.h: after the phases of `grader load` (load.h): settle every key, then audit the money.
// docs/reference/plumbing.md "Plumbing" (Reliability, "Load").
//
//   std::string note;
//   auto failures = settle_open_keys(bank.server, keys, &note);   // a retry for each key without an answer
//   auto more = audit_money(target, bank, keys, &note);          // the ledger and balances against the keys
//
// Each returns what failed, one sentence each (empty: passed), and sets *note to what it counted.
// Thread safety: call from one thread, once every client of the phases has ended.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "grader/load/load_traffic.h"
#include "grader/wire/target.h"

namespace grader {

// How long a key left without an answer may take to be settled after the phases.
constexpr std::chrono::milliseconds kSettlePatience{30'000};

// Every key left without an answer (a client gave up, a connection dropped) is sent again until answered,
// as its client would: then each key has one known outcome, and the audit can hold the ledger to it.
std::vector<std::string> settle_open_keys(const Address& server, std::vector<LoadKey>& keys, std::string* note);

// Nothing lost, nothing twice: one ledger row per key answered 201 (the row its answer names), no row of
// this run that no key explains, and every balance its opening balance moved by exactly those transfers.
std::vector<std::string> audit_money(Target& target, const LoadBank& bank, const std::vector<LoadKey>& keys,
                                     std::string* note);

}  // namespace grader
