// key_table.h: the learner's table of idempotency keys. docs/learn/for-learners.md "For learners".
//
// The interface is the whole lab's, from the start; what each function does grows stage by stage (the
// regions in key_table.cc). Before stage 2 there is no table: claim() never finds a repeat.
//
//   KeyTable keys(lab.db);                 // creates (and, stage by stage, extends) the table
//   Claim claim = keys.claim(scope, lab.clock.now_ms(), fingerprint, lease_ms, ttl_ms);   // UniqueViolation: a repeat
//   std::optional<KeyRow> row = keys.find(scope);                   // the row a repeat collided with
//   std::optional<Claim> claim = keys.take_over(*row, now_ms, lease_ms);   // its lease ran out: fenced takeover
//   auto tx = lab.db.begin_write();
//   if (keys.holds(tx.conn(), claim)) { /* move the money */ keys.complete(tx.conn(), claim, outcome, response); }
//   keys.release(claim);                                            // a failure that is not the request's fault
//                                  // (after the money's transaction has ended: release writes in a transaction
//                                  // of its own, and there is one writer, so called while `tx` is still open
//                                  // it waits for the write lock its own request holds: the request hangs)
//   keys.delete_expired(now_ms, batch);                             // the sweeper's work
//
// Thread safety: safe from any handler thread; every decision is one statement or one write transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/bank.h"
#include "common/db.h"

// The two states of a key.
inline constexpr std::string_view kInProgress = "in_progress";
inline constexpr std::string_view kCompleted = "completed";

// Whose key: the client, the endpoint and the key string the client sent.
struct Scope {
  std::int64_t client_id = 0;
  std::string endpoint;   // "/transfers" or "/payouts"
  std::string key;
  std::string stored_key() const;   // what the table's UNIQUE column holds for this scope
};

// The right to finish the request of one key: valid while the row's fence still equals this fence.
struct Claim {
  std::int64_t id = 0;   // the row: ids are never reused
  std::int64_t fence = 0;
};

// The response first sent for a key: what every repeat gets back, byte for byte.
struct StoredResponse {
  int status = 0;
  std::string content_type;
  std::string body;   // the exact bytes
};

// A key's row as stored. What is filled in depends on how far the table has grown.
struct KeyRow {
  std::int64_t id = 0;
  Scope scope;
  std::string fingerprint;
  std::string state;
  std::int64_t fence = 0;
  std::int64_t locked_until = 0;   // lab clock, ms: the lease of an in_progress claim ends here
  int status = 0;                  // completed: the HTTP status of the outcome
  std::optional<std::int64_t> entry_id;   // completed 201: the ledger entry
  std::string problem_type;        // completed 4xx: the problem's slug
  std::string problem_detail;
  StoredResponse response;         // completed: the response first sent
  std::int64_t expires_at = 0;     // lab clock, ms: after this the key is forgotten (--key-ttl)
};

class KeyTable {
 public:
  explicit KeyTable(lab::Database& db);
  Claim claim(const Scope& scope, std::int64_t now_ms, const std::string& fingerprint, std::int64_t lease_ms,
              std::int64_t ttl_ms) const;
  std::optional<KeyRow> find(const Scope& scope) const;
  std::optional<Claim> take_over(const KeyRow& expired, std::int64_t now_ms, std::int64_t lease_ms) const;
  bool holds(lab::Connection& tx, const Claim& claim) const;
  void complete(lab::Connection& tx, const Claim& claim, const lab::MoneyOutcome& outcome,
                const StoredResponse& response) const;
  // Never throws: it runs while another error is answered. Call it after the money's transaction has ended
  // (rolled back): it writes in a transaction of its own, which would wait forever for that one's write lock
  // (common/sqlite_store.cc:SqliteStore::begin_write takes the process's one write lock).
  void release(const Claim& claim) const noexcept;
  int delete_expired(std::int64_t now_ms, int batch) const;   // returns how many rows it deleted

 private:
  lab::Database& db_;
};
