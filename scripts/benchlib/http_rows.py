"""http_rows.py: one row of the HTTP table: a fresh server, its accounts, wrk with bench/transfers.lua, and
the checks that make the row worth reading (no unexpected status, the ledger grew by what was executed).

    row = measure_row(args, run_dir, index, (server, sync, connections, mode, retry_share), has_sync)

server is a stage binary's name, "trivial" / "trivial --guarded" (bench/trivial_post_server.cc), or
"postgres xN": N stage-6 instances on one database of a throwaway PostgreSQL cluster (args.pg_dir, started by
bench.py with scripts/pg-cluster.sh), wrk's threads spread over them (docs/reference/beyond-one-process.md "Beyond one process").
"""
import json
import os
import re
import sqlite3
import subprocess
import urllib.request

from benchlib.processes import Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LUA_SCRIPT = os.path.join(ROOT, "bench", "transfers.lua")
ADMIN_TOKEN = "bench-admin-token"
OPENING_BALANCE = 1_000_000_000_000  # cents; 1 cent per transfer, so no run overdraws; far below 2^53 - 1


# What the table calls the HTTP-only servers (bench/trivial_post_server.cc) and the PostgreSQL rows.
SERVER_NAMES = {"trivial": "HTTP alone: cpp-httplib", "trivial --guarded": "HTTP alone: lab GuardedServer",
                 "postgres x1": "stage 6 on PostgreSQL, 1 instance", "postgres x3": "stage 6 on PostgreSQL, 3 inst."}
# wrk threads of a PostgreSQL row: one per instance of the 3-instance row, and as many for 1 instance, so both
# rows put the same load shape on the machine (connections are divided among threads: 15 of 16).
POSTGRES_THREADS = 3


def row_name(server, mode, share):
    """The table's name of a row: the server, and what its requests are when they are not all new keys."""
    server = SERVER_NAMES.get(server, server)
    if mode == "retries":
        return f"{server}, replays only" if share >= 1 else f"{server}, {int(share * 100)}% retries"
    return f"{server}, duplicates" if mode == "duplicates" else server


def admin_post(server, path, body):
    req = urllib.request.Request(server.url() + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + ADMIN_TOKEN,
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.load(res)


def open_accounts(server, threads):
    """One client with one account per wrk thread; thread i sends from its account to the next thread's
    (or, alone, to a second account of its own). Returns transfers.lua's accounts= argument."""
    owners = []
    for i in range(max(threads, 2)):
        client = admin_post(server, "/admin/clients", {"name": f"bench-{i}"})
        account = admin_post(server, "/admin/accounts",
                             {"client_id": client["id"], "balance": OPENING_BALANCE, "currency": "USD"})
        owners.append((client["token"], account["id"]))
    return ",".join(f"{owners[i][0]}:{owners[i][1]}:{owners[(i + 1) % len(owners)][1]}" for i in range(threads))


def ledger_rows(db):
    """The ledger's row count, read from the file as another process may (WAL: the server keeps writing), or
    from the PostgreSQL database (psql)."""
    if db.startswith("postgresql://"):
        out = subprocess.run(["psql", db, "-Atc", "SELECT count(*) FROM ledger"], capture_output=True, text=True,
                             timeout=30, check=True)
        return int(out.stdout.strip())
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as conn:
        return conn.execute("SELECT count(*) FROM ledger").fetchone()[0]

def run_wrk(url, connections, seconds, lua_args, log_path, threads, addresses=None):
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", LUA_SCRIPT, url,
               "--"] + lua_args
    env = dict(os.environ, BENCH_ADDRESSES=",".join(addresses)) if addresses else None
    out = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, env=env)
    with open(log_path, "w") as log:
        log.write(" ".join(command) + "\n" + out.stdout + out.stderr)
    m = re.search(r"^BENCH-RESULT (.*)$", out.stdout, re.M)
    if out.returncode != 0 or not m:
        raise RuntimeError(f"wrk failed (exit {out.returncode}); see {log_path}")
    return json.loads(m.group(1))


def measure_row(args, run_dir, index, spec, has_sync):
    server_name, sync, connections, mode, share = spec
    threads = 1 if connections == 1 else 2
    db = os.path.join(run_dir, f"row{index}.db")
    log = os.path.join(run_dir, f"row{index}")
    instances = 1
    if server_name.startswith("trivial"):
        command = [os.path.join(args.build, "bench", "trivial_post_server"), "--port", "0"] + server_name.split()[1:]
    else:
        if server_name.startswith("postgres"):
            instances, threads = int(server_name.split("x")[1]), POSTGRES_THREADS
            db = f"postgresql:///bench_row{index}?host={args.pg_dir}&user=lab"   # created by the first instance
        stage = "stage6_scope_ttl" if server_name.startswith("postgres") else server_name
        command = [os.path.join(args.build, "stages", stage), "--port", "0", "--db", db,
                   "--admin-token", ADMIN_TOKEN, "--quiet"]
        if has_sync:
            command += ["--sync", sync]
    servers = []
    for i in range(instances):
        servers.append(Server(command, db, log + f".server{i}.log"))
    server = servers[0]
    try:
        if server_name.startswith("trivial"):
            accounts = ",".join("none:1:2" for _ in range(threads))   # no auth: any token will do
            ledger_before = None
        else:
            accounts = open_accounts(server, threads)
            ledger_before = ledger_rows(db)
        lua_args = [f"accounts={accounts}", f"mode={mode}", f"retry_share={share}"]
        for s in servers:
            s.sample_rss()
        addresses = [s.url().removeprefix("http://") for s in servers] if instances > 1 else None
        result = run_wrk(server.url(), connections, args.seconds, lua_args, log + ".wrk.log", threads, addresses)
        result["ledger_rows"] = None if ledger_before is None else ledger_rows(db) - ledger_before
    finally:
        hwm = max(s.stop() for s in servers)   # the largest instance's peak
    seconds = result["duration_us"] / 1e6
    row = {"server": server_name, "sync": sync, "connections": connections, "threads": threads, "mode": mode,
           "retry_share": share, "requests": result["requests"], "seconds": round(seconds, 3),
           "requests_per_second": round(result["requests"] / seconds, 1), "p50_ms": result["p50_us"] / 1000,
           "p99_ms": result["p99_us"] / 1000, "max_ms": result["max_us"] / 1000,
           "statuses": result["statuses"], "replayed": result["replayed"], "retries_sent": result["retries_sent"],
           "socket_errors": result["socket_errors"], "ledger_rows": result["ledger_rows"],
           "peak_rss_kib": max([hwm] + [s.peak_rss_kib for s in servers]), "instances": instances, "problems": []}
    check_row(row)
    return row


def check_row(row):
    """The harness's own honesty: only the statuses the mode can cause, and one ledger row per executed 201."""
    expected = {"201"} | ({"409"} if row["mode"] != "new" else set())
    unexpected = {s: n for s, n in row["statuses"].items() if s not in expected}
    if unexpected:
        row["problems"].append("unexpected statuses " + ", ".join(f"{s}: {n}" for s, n in sorted(unexpected.items())))
    errors = sum(row["socket_errors"].values())
    if errors:
        row["problems"].append(f"{errors} socket errors {row['socket_errors']}")
    if row["ledger_rows"] is not None:
        # Executed = 201s not marked replayed. Requests still in flight when wrk stopped may have committed
        # without being counted: at most one per connection.
        executed = row["statuses"].get("201", 0) - row["replayed"]
        if not 0 <= row["ledger_rows"] - executed <= row["connections"]:
            row["problems"].append(f"{row['ledger_rows']} ledger rows for {executed} executed 201s")
