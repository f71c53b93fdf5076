// key_table.h: the table of idempotency keys. What this stage teaches: money_handler.cc.
//
//   KeyTable keys(lab.db);                  // creates the table if needed
//   Claim claim = keys.claim(scope, lab.clock.now_ms(), fingerprint, lease_ms, ttl_ms);   // UniqueViolation if taken
//   std::optional<KeyRow> row = keys.find(scope);                   // the taken key: which state
//   std::optional<Claim> claim = keys.take_over(*row, now_ms, lease_ms);   // its lease ran out: fenced takeover
//   auto tx = lab.db.begin_write();
//   if (keys.holds(tx.conn(), claim)) { /* move the money */ keys.complete(tx.conn(), claim, response); tx.commit(); }
//   keys.release(claim);                                            // a failure that is not the request's fault
//   keys.delete_expired(now_ms, batch);                             // the sweeper's work
//
// Thread safety: safe from any handler thread; every decision is one statement or one write transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/db.h"

// The two states of a key (drawn in key_table.cc).
inline constexpr std::string_view kInProgress = "in_progress";
inline constexpr std::string_view kCompleted = "completed";

// Whose key: the same key string from two clients, or on two endpoints, names two different requests.
struct Scope {
  std::int64_t client_id = 0;
  std::string endpoint;   // "/transfers" or "/payouts"
  std::string key;
};

// The right to finish the request of one key: valid while the row's fence still equals this fence.
// It names the row by id, not by key: release() deletes a row, and the same key can then be claimed again,
// in a new row whose fence starts at 1 again. A holder fenced out of the old row must not find "its" fence
// on the new one; ids are never reused (AUTOINCREMENT), so it cannot.
struct Claim {
  std::int64_t id = 0;
  std::int64_t fence = 0;
};

// The response first sent for a key: what every repeat gets back, byte for byte.
struct StoredResponse {
  int status = 0;
  std::string content_type;
  std::string body;   // the exact bytes
};

// A key's row as stored. The response is set only when state is completed.
struct KeyRow {
  std::int64_t id = 0;
  Scope scope;
  std::string fingerprint;
  std::string state;
  std::int64_t fence = 0;
  std::int64_t locked_until = 0;   // lab clock, ms: the lease of an in_progress claim ends here
  std::int64_t expires_at = 0;     // lab clock, ms: after this the key is forgotten (--key-ttl)
  StoredResponse response;         // completed: the response first sent
};

class KeyTable {
 public:
  explicit KeyTable(lab::Database& db);
  Claim claim(const Scope& scope, std::int64_t now_ms, const std::string& fingerprint, std::int64_t lease_ms,
              std::int64_t ttl_ms) const;
  std::optional<KeyRow> find(const Scope& scope) const;
  std::optional<Claim> take_over(const KeyRow& expired, std::int64_t now_ms, std::int64_t lease_ms) const;
  bool holds(lab::Connection& tx, const Claim& claim) const;
  void complete(lab::Connection& tx, const Claim& claim, const StoredResponse& response) const;
  void release(const Claim& claim) const noexcept;   // never throws: it runs while another error is answered
  int delete_expired(std::int64_t now_ms, int batch) const;   // returns how many rows it deleted

 private:
  lab::Database& db_;
};
