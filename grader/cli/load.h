// load.h: `grader load`: bounded loopback load on one server, to show that it stays up and correct under
// many connections and slow clients. docs/reference/plumbing.md "Plumbing" (Reliability, "Load"); `make load` runs it.
//
//   grader load [--bin-dir DIR | --server CMD] [--seconds-per-phase S]
//
// It starts stage 6 (or the --server command, with {port} {db} {admin_token}), makes clients and accounts
// through the admin API, and runs three phases of S seconds (the clients are in load_traffic.h):
//   1. 64 keep-alive connections, mixed: new transfers, retries of completed keys, simultaneous copies;
//   2. the same on 256 connections: every connection must be answered, none waits past kLoadPatience;
//   3. slow clients: 128 sockets sending a request head at 4 bytes a second and 32 idle keep-alive
//      connections, while 8 healthy clients send transfers that must each be answered within kLoadPatience.
// Then every request left without an answer is sent again until it is answered (a client's retry), and
// the money is audited: each key answered 201 has exactly one ledger row, and every balance is its opening
// balance moved by exactly the accepted transfers. The server's memory (VmRSS of its process group) is
// sampled all along and must end phase 3 within 16 MiB of phase 2's peak (kMemoryGrowthAllowedKib).
//
// Prints a table (phase, connections, requests, req/s, latency, RSS, verdict, statuses) and what failed.
// Exit status: 0 when every phase and the audit passed, 1 when one failed, 2 for a usage error or a
// server that does not start.
#pragma once

#include <string>
#include <vector>

namespace grader {

int run_load(const std::vector<std::string>& args);  // the process exit status

}  // namespace grader
