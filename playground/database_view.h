// database_view.h: a stage server's SQLite file, read from outside while the server runs: the key table,
// the ledger and the accounts as the playground shows them. docs/teach/the-playground.md "The playground".
//
//   TableView keys = read_table(db_path, "idempotency_keys");   // {columns, rows}, every column as text
//
// Read-only (SQLITE_OPEN_READONLY) and never blocking the server for long: a reader in WAL mode sees the
// last committed state and takes no lock the writer waits on. Whatever columns a stage's table has are
// shown as they are: stage 2's key table has two, stage 6's ten; that difference is the lesson.
// Thread safety: free functions; each call opens its own connection.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace playground {

struct TableView {
  std::vector<std::string> columns;              // empty: no such table (yet), or the file is unreadable
  std::vector<std::vector<nlohmann::json>> rows;  // integers as numbers, text as strings, NULL as null
  std::string error;                              // why it could not be read ("" when it was)
};

// The rows the page shows of each table, the newest: a session's recent work, in a state of some 40 KB
// (a ledger row is about 80 bytes of JSON) however long free mode runs.
constexpr std::size_t kTableRowsShown = 500;

// Every row of `table`, in rowid order, at most `max_rows` (the newest are kept).
TableView read_table(const std::string& db_path, const std::string& table, std::size_t max_rows = kTableRowsShown);

nlohmann::json to_json(const TableView& view);  // {"columns": [...], "rows": [[...], ...], "error": ...}

}  // namespace playground
