// key_table.h: stage 6's table of idempotency keys, scoped and expiring. LAB.md "Stage 6: scope and retention".
//
//   KeyTable keys(lab.db);
//   Claim claim = keys.claim(scope, fingerprint, now_ms, lease_ms, ttl_ms);   // throws UniqueViolation if taken
//   std::optional<KeyRow> row = keys.find(scope);                   // the taken key: which state
//   std::optional<Claim> claim = keys.take_over(*row, now_ms, lease_ms);   // its lease ran out: fenced takeover
//   auto tx = lab.db.begin_write();
//   if (keys.holds(tx.conn(), claim)) { /* move the money */ keys.complete(tx.conn(), claim, response); tx.commit(); }
//   keys.release(claim);                                            // a failure that is not the request's fault
//   keys.delete_expired(now_ms, batch);                             // the sweeper's work
//
// Thread safety: safe from any handler thread; every decision is one statement or one write transaction.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/bank.h"
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
// Rows now die (expiry) and a scope can be claimed again, so a claim names its row by id, which is never
// reused (AUTOINCREMENT): a holder that outlived its row cannot complete the next row of the same key.
struct Claim {
  std::int64_t id = 0;
  std::int64_t fence = 0;
};

// The response first sent for a key: what every repeat gets back, byte for byte.
struct StoredResponse {
  int status = 0;
  std::string content_type;
  std::string body;   // the exact bytes
  static StoredResponse Of(const httplib::Response& res) {
    return StoredResponse{res.status, res.get_header_value("Content-Type"), res.body};
  }
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
  Claim claim(const Scope& scope, const std::string& fingerprint, std::int64_t now_ms, std::int64_t lease_ms,
              std::int64_t ttl_ms) const;
  std::optional<KeyRow> find(const Scope& scope) const;
  std::optional<Claim> take_over(const KeyRow& expired, std::int64_t now_ms, std::int64_t lease_ms) const;
  bool holds(lab::Connection& tx, const Claim& claim) const;
  void complete(lab::Connection& tx, const Claim& claim, const StoredResponse& response) const;
  void release(const Claim& claim) const;
  int delete_expired(std::int64_t now_ms, int batch) const;   // returns how many rows it deleted

 private:
  lab::Database& db_;
};
