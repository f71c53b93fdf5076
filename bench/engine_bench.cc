// engine_bench.cc: the SQLite engine alone, as the stages use it (common/db.h), on the disk the stage
// databases live on: how many requests of a transfer's shape one writer commits per second. The ceiling
// that `make bench` (scripts/bench.py) measures the stages against. docs/reference/plumbing.md "Performance".
//
//   engine_bench --dir DIR [--seconds S]
//
// For --sync full and normal (journal_mode=WAL both, as every stage opens its database),
// and for one and two write transactions per request, it runs requests back to back for S seconds on a
// fresh database file in DIR and prints one JSON line per measurement:
//   {"sync":"normal","txns_per_request":2,"claim_with_next_commit":false,"requests":40800,"seconds":2.0,
//    "requests_per_second":20400,"commits_per_second":40800}
// A fifth measurement is stages 4-6 at --sync full: two transactions, the claim committed
// Durability::WithNextCommit (common/db.h), so one fsync per request ("claim_with_next_commit":true).
//
// A request is stage 4-6's transfer without the HTTP around it:
//   txn 1, the claim:       INSERT the key row, in_progress
//   txn 2, the completion:  UPDATE both balances, INSERT the ledger row, UPDATE the key row to completed
//                           with the stored response
// With one transaction per request, all of it commits at once: the shape of stages 2 and 3.
//
// One thread: the stages queue their writers on SqliteStore::write_lock_ (common/sqlite_store.h), so one writer at a time
// is the most they get from SQLite; this is that writer with nothing else to do. What is not here: the
// reads a stage makes (authentication, the two accounts, a repeat's SELECT), HTTP, JSON, SHA-256.
//
// FULL is the lab's Sync::Full: every durable commit fsyncs the WAL before commit() returns (a commit survives
// a power loss); NORMAL syncs only at checkpoints (a commit survives a crash of the process, not of the
// machine). With one writer each fsync covers one commit, as SQLite's own synchronous=FULL would: FULL costs
// one fsync per commit, and the two-commit request pays two, unless its claim waits for the completion's
// fsync (WithNextCommit), as the stages' does. The stages' concurrent writers share fsyncs (group commit,
// common/group_commit.h), which one thread cannot show: that is what stage 6 at FULL / this rate measures.
#include <sys/vfs.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "common/db.h"

namespace {

constexpr double kDefaultSeconds = 2.0;       // per measurement: long enough to pass a few WAL checkpoints
constexpr double kMaxSeconds = 600.0;
// Far above what a measurement moves (1 per request), far below the bank's maximum (2^53 - 1).
constexpr std::int64_t kOpeningBalance = 1'000'000'000'000;
// statfs's f_type of a tmpfs (linux/magic.h): a database there never reaches a disk, so its fsync is free.
constexpr long kTmpfsMagic = 0x01021994;

// The tables a transfer writes, with the columns, constraints and indexes stage 6 gives them
// (common/bank.cc, stages/6_scope_ttl/key_table.cc): what each write costs depends on them.
constexpr const char* kSchema = R"sql(
CREATE TABLE accounts (id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL, currency TEXT NOT NULL,
                       opening_balance INTEGER NOT NULL, balance INTEGER NOT NULL CHECK (balance >= 0),
                       created_at INTEGER NOT NULL);
CREATE TABLE ledger (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, from_account INTEGER NOT NULL REFERENCES accounts(id),
                     to_account INTEGER REFERENCES accounts(id), destination TEXT, amount INTEGER NOT NULL CHECK (amount > 0),
                     currency TEXT NOT NULL, memo TEXT NOT NULL, metadata TEXT, from_balance_after INTEGER NOT NULL,
                     created_at INTEGER NOT NULL);
CREATE TABLE idempotency_keys (id INTEGER PRIMARY KEY AUTOINCREMENT, client_id INTEGER NOT NULL, endpoint TEXT NOT NULL,
                     key TEXT NOT NULL, created_at INTEGER NOT NULL, fingerprint TEXT NOT NULL,
                     state TEXT NOT NULL CHECK (state IN ('in_progress', 'completed')), fence INTEGER NOT NULL,
                     locked_until INTEGER NOT NULL, response_status INTEGER, response_content_type TEXT,
                     response_body BLOB, expires_at INTEGER NOT NULL, UNIQUE (client_id, endpoint, key));
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
)sql";

// A stored response about the size of a stage's 201 (a ledger entry as JSON).
constexpr const char* kStoredBody =
    R"({"id":1,"kind":"transfer","from_account":1,"to_account":2,"amount":1,"currency":"USD","memo":"",)"
    R"("from_balance_after":999999999999,"created_at":1700000000000,"metadata":null})";
constexpr const char* kFingerprint = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

using lab::Durability;
using lab::Sync;

const char* name_of(Sync sync) { return sync == Sync::Full ? "full" : "normal"; }

// One measurement's request shape.
struct Shape {
  Sync sync;
  int txns_per_request;         // 1: claim and money in one commit; 2: the claim, then the completion
  Durability claim_durability;  // of the claim's commit, when it is its own (2 transactions)
};

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// --- the two phases of one request ---

std::int64_t claim_key(lab::Connection& conn, std::int64_t n) {
  std::int64_t now = now_ms();
  conn.prepare("INSERT INTO idempotency_keys (client_id, endpoint, key, created_at, fingerprint, state, fence, "
               "locked_until, expires_at) VALUES (1, '/transfers', ?1, ?2, ?3, 'in_progress', 1, ?4, ?5)")
      .bind(1, "engine-" + std::to_string(n))
      .bind(2, now)
      .bind(3, kFingerprint)
      .bind(4, now + 30'000)
      .bind(5, now + 86'400'000)
      .run();
  return conn.last_insert_rowid();
}

void move_money_and_complete(lab::Connection& conn, std::int64_t key_id) {
  conn.prepare("UPDATE accounts SET balance = balance - 1 WHERE id = 1").run();
  conn.prepare("UPDATE accounts SET balance = balance + 1 WHERE id = 2").run();
  conn.prepare("INSERT INTO ledger (kind, from_account, to_account, amount, currency, memo, from_balance_after, "
               "created_at) VALUES ('transfer', 1, 2, 1, 'USD', '', 0, ?1)")
      .bind(1, now_ms())
      .run();
  conn.prepare("UPDATE idempotency_keys SET state = 'completed', response_status = 201, "
               "response_content_type = 'application/json', response_body = ?1 WHERE id = ?2 AND fence = 1")
      .bind_blob(1, kStoredBody)
      .bind(2, key_id)
      .run();
}

void one_request(lab::Database& db, std::int64_t n, const Shape& shape) {
  if (shape.txns_per_request == 1) {
    auto tx = db.begin_write();
    move_money_and_complete(tx.conn(), claim_key(tx.conn(), n));
    tx.commit();
    return;
  }
  std::int64_t key_id;
  {
    auto claim = db.begin_write(shape.claim_durability);
    key_id = claim_key(claim.conn(), n);
    claim.commit();
  }
  auto completion = db.begin_write();
  move_money_and_complete(completion.conn(), key_id);
  completion.commit();
}

// --- one measurement: a fresh database, requests for `seconds` ---

void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

void measure(const std::string& dir, const Shape& shape, double seconds) {
  const bool claim_with_next_commit = shape.claim_durability == Durability::WithNextCommit;
  const std::string path = dir + "/engine-bench-" + name_of(shape.sync) + "-" +
                           std::to_string(shape.txns_per_request) + (claim_with_next_commit ? "-next" : "") + ".db";
  remove_database(path);
  std::int64_t requests = 0;
  double elapsed = 0;
  {
    lab::Database db(path, shape.sync);   // WAL, foreign keys, the sync level: as every stage opens it
    db.exec_script(kSchema);
    {
      auto tx = db.begin_write();
      for (int id : {1, 2})
        tx.conn()
            .prepare("INSERT INTO accounts (id, client_id, currency, opening_balance, balance, created_at) "
                     "VALUES (?1, ?1, 'USD', ?2, ?2, 0)")
            .bind(1, id)
            .bind(2, kOpeningBalance)
            .run();
      tx.commit();
    }
    const auto start = std::chrono::steady_clock::now();
    const auto until = start + std::chrono::duration<double>(seconds);
    // The clock is read once per request: a few tens of nanoseconds against tens of microseconds.
    while (std::chrono::steady_clock::now() < until) one_request(db, ++requests, shape);
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  remove_database(path);
  const double per_second = requests / elapsed;
  std::printf("{\"sync\":\"%s\",\"txns_per_request\":%d,\"claim_with_next_commit\":%s,\"requests\":%lld,"
              "\"seconds\":%.3f,\"requests_per_second\":%.0f,\"commits_per_second\":%.0f}\n",
              name_of(shape.sync), shape.txns_per_request, claim_with_next_commit ? "true" : "false",
              static_cast<long long>(requests), elapsed, per_second, per_second * shape.txns_per_request);
  std::fflush(stdout);
}

const char* kUsage = R"(engine_bench: SQLite alone, as the stages use it: requests of a transfer's shape per second.

Usage: engine_bench --dir DIR [--seconds S]

  --dir DIR      where the database file goes (a fresh one per measurement, removed after). Put it on the
                 disk the stages' databases use: on a tmpfs (/dev/shm) fsync costs nothing.
  --seconds S    per measurement, default 2 (five measurements in all)
  --help         this text

Measures synchronous FULL and NORMAL (WAL both) times one and two write transactions per request, then
two at FULL with the claim waiting for the next commit's fsync (as stages 4-6 at --sync full); one writer
thread; one JSON line per measurement. docs/reference/plumbing.md "Performance"; scripts/bench.py runs it.
)";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "engine_bench: %s\nTry 'engine_bench --help'.\n", why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  double seconds = kDefaultSeconds;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help") return std::fputs(kUsage, stdout), 0;
    if (arg != "--dir" && arg != "--seconds") return usage_error("unknown option " + arg);
    if (i + 1 == argc) return usage_error(arg + " needs a value");
    if (arg == "--dir") {
      dir = argv[++i];
    } else if (arg == "--seconds") {
      char* end = nullptr;
      seconds = std::strtod(argv[++i], &end);
      if (*end != '\0' || !(seconds > 0 && seconds <= kMaxSeconds))
        return usage_error("--seconds takes a number above 0, at most 600");
    }
  }
  if (dir.empty()) return usage_error("--dir is required");
  if (!std::filesystem::is_directory(dir)) return usage_error("--dir " + dir + ": not a directory");
  struct statfs fs{};
  if (statfs(dir.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTmpfsMagic)
    std::fprintf(stderr, "engine_bench: warning: %s is a tmpfs: fsync costs nothing there, FULL is not measured\n",
                 dir.c_str());
  try {
    for (Sync sync : {Sync::Full, Sync::Normal})
      for (int txns : {1, 2}) measure(dir, Shape{sync, txns, Durability::AtCommit}, seconds);
    measure(dir, Shape{Sync::Full, 2, Durability::WithNextCommit}, seconds);   // stages 4-6 at --sync full
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engine_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
