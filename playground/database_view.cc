// database_view.cc: see database_view.h.
#include "playground/database_view.h"

#include <sqlite3.h>

#include <memory>

namespace playground {
namespace {

using Db = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;
using Statement = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

// Table names come from this program, never from a request; quoting keeps even that honest.
std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

nlohmann::json cell(sqlite3_stmt* row, int i) {
  switch (sqlite3_column_type(row, i)) {
    case SQLITE_INTEGER:
      return sqlite3_column_int64(row, i);
    case SQLITE_FLOAT:
      return sqlite3_column_double(row, i);
    case SQLITE_NULL:
      return nullptr;
    case SQLITE_BLOB:
      return "(" + std::to_string(sqlite3_column_bytes(row, i)) + " bytes)";
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(row, i));
      return std::string(text ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(row, i)));
    }
  }
}

}  // namespace

TableView read_table(const std::string& db_path, const std::string& table, std::size_t max_rows) {
  TableView view;
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(db_path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw, &sqlite3_close);
  if (rc != SQLITE_OK) {
    view.error = "cannot open " + db_path + ": " + (raw ? sqlite3_errmsg(raw) : "out of memory");
    return view;
  }
  sqlite3_busy_timeout(db.get(), 200);  // a checkpoint may hold the file a moment
  // The newest max_rows rows, shown oldest first.
  const std::string sql = "SELECT * FROM (SELECT * FROM " + quoted(table) + " ORDER BY rowid DESC LIMIT " +
                          std::to_string(max_rows) + ") ORDER BY rowid";
  sqlite3_stmt* raw_statement = nullptr;
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &raw_statement, nullptr) != SQLITE_OK) {
    // "no such table": the server has not created it yet, or this stage has none (stage 1 has no keys).
    view.error = sqlite3_errmsg(db.get());
    return view;
  }
  Statement statement(raw_statement, &sqlite3_finalize);
  const int n = sqlite3_column_count(statement.get());
  for (int i = 0; i < n; ++i) view.columns.emplace_back(sqlite3_column_name(statement.get(), i));
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    auto& row = view.rows.emplace_back();
    for (int i = 0; i < n; ++i) row.push_back(cell(statement.get(), i));
  }
  if (rc != SQLITE_DONE) view.error = sqlite3_errmsg(db.get());
  return view;
}

nlohmann::json to_json(const TableView& view) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : view.rows) rows.push_back(r);
  return {{"columns", view.columns}, {"rows", rows}, {"error", view.error.empty() ? nlohmann::json() : nlohmann::json(view.error)}};
}

}  // namespace playground
