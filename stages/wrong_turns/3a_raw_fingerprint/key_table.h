// key_table.h: stage 3's table of idempotency keys. LAB.md "Stage 3: the canonical fingerprint".
//
//   KeyTable keys(lab.db);                 // creates the table if needed
//   keys.insert(key, fingerprint, lab.clock.now_ms());   // throws UniqueViolation if the key is already there
//   keys.fingerprint_of(key);                            // what the first request with that key looked like
//
// Thread safety: safe from any handler thread (each call is one statement on the thread's connection).
#pragma once

#include <cstdint>
#include <string>

#include "common/db.h"

class KeyTable {
 public:
  explicit KeyTable(lab::Database& db);
  void insert(const std::string& key, const std::string& fingerprint, std::int64_t now_ms) const;
  std::string fingerprint_of(const std::string& key) const;

 private:
  lab::Database& db_;
};
