// key_table.h: WRONG TURN 2a, a key table without a UNIQUE constraint. docs/teach/wrong-turns.md "Wrong turns".
//
//   KeyTable keys(lab.db);                  // creates the table if needed
//   if (!keys.exists(key)) keys.insert(key, lab.clock.now_ms());   // WRONG: check, then act
//
// Thread safety: safe from any handler thread; every decision is one statement or one write transaction.
#pragma once

#include <cstdint>
#include <string>

#include "common/db.h"

class KeyTable {
 public:
  explicit KeyTable(lab::Database& db);
  bool exists(const std::string& key) const;
  void insert(const std::string& key, std::int64_t now_ms) const;

 private:
  lab::Database& db_;
};
