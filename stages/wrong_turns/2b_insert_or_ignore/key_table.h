// key_table.h: WRONG TURN 2b, a key table written with INSERT OR IGNORE. LAB.md "Wrong turns".
//
//   KeyTable keys(lab.db);                 // creates the table if needed
//   keys.insert(key, lab.clock.now_ms());   // WRONG: never throws; a repeat is silently ignored
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
