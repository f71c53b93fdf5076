// key_table.h: stage 2's table of idempotency keys. LAB.md "Stage 2: a key table with a UNIQUE constraint".
//
//   KeyTable keys(lab.db);                 // creates the table if needed
//   keys.insert(key, lab.clock.now_ms());   // throws UniqueViolation if the key is already there
//
// Thread safety: safe from any handler thread (each call is one statement on the thread's connection).
#pragma once

#include <cstdint>
#include <string>

#include "common/db.h"

class KeyTable {
 public:
  explicit KeyTable(lab::Database& db);
  void insert(const std::string& key, std::int64_t now_ms) const;

 private:
  lab::Database& db_;
};
