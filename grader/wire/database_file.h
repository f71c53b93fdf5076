// database_file.h: the server's SQLite file, read from outside and read-only, while the server runs.
// docs/reference/plumbing.md "Plumbing" (Reliability: soak).
//
//   DatabaseFileReading r = read_database_file(target.database_path(), lab_now_ms);
//   r.integrity          // "ok", or what PRAGMA integrity_check found
//   r.stuck_keys         // in_progress rows whose lease ended before lab_now_ms (the reference schema only)
//
// The grader links no SQLite: it is a black-box HTTP client that Gradescope compiles with g++ alone
// (scripts/gradescope/setup.sh), so this file runs the sqlite3 program (Debian's sqlite3 package, which
// scripts/ensure-deps.sh installs) with -readonly. A missing program is said in `unavailable`, not
// counted as the server's fault. The keys are read only where the file has the reference stages'
// idempotency_keys table (docs/learn/stage-4-two-phase.md "Stage 4: in_progress, then completed", the SQL); a server of another design is judged by its answers.
// Thread safety: free functions, no shared state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace grader {

struct DatabaseFileReading {
  std::string unavailable;  // why the file could not be read at all ("" when it was)
  std::string integrity;    // PRAGMA integrity_check's answer: "ok" when the file is sound
  // "key (lease ended at T ms)" for every in_progress row past its lease; nullopt when the file has no
  // idempotency_keys table with key, state and locked_until columns.
  std::optional<std::vector<std::string>> stuck_keys;
};

DatabaseFileReading read_database_file(const std::string& path, std::int64_t lab_now_ms);

}  // namespace grader
