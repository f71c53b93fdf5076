// key_table.h: the table of idempotency keys. What this stage teaches: money_handler.cc.
//
//   KeyTable keys(lab.db);                  // creates the table if needed
//   keys.insert(key, lab.clock.now_ms());   // throws UniqueViolation if the key is already there
//
// Thread safety: safe from any handler thread; every decision is one statement or one write transaction.
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
