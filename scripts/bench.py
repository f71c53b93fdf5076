#!/usr/bin/env python3
"""bench.py: `make bench` and `make bench-day`. One run, one table: the machine's limits for this work, each
stage's throughput and latency under the same load, the ratios between them, the day replay, the grader's
matrix, and the goals each marked met or NOT met. LAB.md "Performance".

    scripts/bench.py [--build DIR] [--seconds N] [--quick] [--out FILE]
    scripts/bench.py --day-intents N [--build DIR]        # make bench-day: only the day, N intents

The instruments (bench/CMakeLists.txt): engine_bench (SQLite alone), trivial_post_server (HTTP alone),
bench/transfers.lua (wrk's requests), wrk itself (Debian's wrk 4.1, the load generator). Every server runs on a
fresh database in BUILD/bench/run/, on the disk of the build folder, never on a tmpfs: there fsync is free.
wrk and the server share the machine's cores, so every figure is "server plus load generator on N cores".

Python 3 standard library only. Writes BUILD/bench/bench-<date>.json and BUILD/bench/latest.json (or --out).
Progress goes to stderr, the table to stdout; no colour anywhere, so a log reads like a terminal.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LUA_SCRIPT = os.path.join(ROOT, "bench", "transfers.lua")
STAGES = ["stage1_naive", "stage2_unique_key", "stage3_fingerprint", "stage4_two_phase", "stage5_replay",
          "stage6_scope_ttl"]
ADMIN_TOKEN = "bench-admin-token"
OPENING_BALANCE = 1_000_000_000_000  # cents; 1 cent per transfer, so no run overdraws; far below 2^53 - 1
START_TIMEOUT_S = 10                 # a server that has not printed its listening line by then failed
RSS_SAMPLE_EVERY_S = 0.2             # often enough to see a run's peak, rarely enough to cost nothing
DEFAULT_SECONDS = 4                  # per wrk run: 25 runs, so `make bench` stays near 3 of its 5 minutes
ENGINE_SECONDS = 2.0                 # per engine measurement (four of them)
DAY_SPEED_MAX = 1_000_000_000        # grader day replay's largest --speed: intents start as fast as sent

# The goals of the issue, with their thresholds.
GOAL_NORMAL_VS_ENGINE = 0.5   # stage 6 at NORMAL >= this x the engine's two-commit rate at NORMAL
GOAL_NORMAL_VS_STAGE1 = 0.5   # ... and >= this x stage 1 at NORMAL
GOAL_FULL_VS_ENGINE = 1.1     # stage 6 at FULL >= this x the engine's two-commit rate at FULL (one fsync, not two)
GOAL_P99_MS = {16: 20, 64: 50}
GOAL_RSS_MIB = 30
GOAL_MATRIX_S = 30
GOAL_DAY_S = 30


def progress(line):
    print(line, file=sys.stderr, flush=True)


# --- the plan: which rows, how long -------------------------------------------------------------------------

def plan(quick, syncs):
    """The wrk runs, as (server, sync, connections, mode, retry_share). One place to count them."""
    runs = [("trivial", None, 16, "new", 0), ("trivial --guarded", None, 16, "new", 0)]
    edges = ["stage1_naive", "stage6_scope_ttl"]
    conns = [16] if quick else [1, 16, 64]
    for sync in syncs:
        for stage in edges:
            runs += [(stage, sync, c, "new", 0) for c in conns]
        if not quick:
            runs += [(stage, sync, 16, "new", 0) for stage in STAGES[1:5]]
    # Retries and duplicates: at NORMAL, where the disk hides least of the server's own work.
    sync = "normal"
    runs += [("stage6_scope_ttl", sync, 16, "retries", 0.25), ("stage6_scope_ttl", sync, 16, "retries", 1.0),
             ("stage6_scope_ttl", sync, 16, "duplicates", 0)]
    return runs


def row_name(server, mode, share):
    if mode == "retries":
        return f"{server}, replays only" if share >= 1 else f"{server}, {int(share * 100)}% retries"
    return f"{server}, duplicates" if mode == "duplicates" else server


# --- processes: servers and their memory ---------------------------------------------------------------------

def status_kib(pid, field):
    """VmRSS or VmHWM (the peak of VmRSS) of a process, in KiB; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Server:
    """A server started on a fresh database, stopped with SIGTERM. Samples its VmRSS while it runs."""

    def __init__(self, command, db, log_path):
        self.db = db
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.port = self._read_port()
        self.peak_rss_kib = 0
        self._sampling = threading.Event()
        self._sampler = None

    def _read_port(self):
        timer = threading.Timer(START_TIMEOUT_S, self.proc.kill)
        timer.start()
        line = self.proc.stdout.readline()
        timer.cancel()
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"{self.proc.args[0]} did not start (first line: {line.strip()!r}; see {self.log.name})")
        return int(m.group(1))

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def sample_rss(self):
        def loop():
            while not self._sampling.wait(RSS_SAMPLE_EVERY_S):
                self.peak_rss_kib = max(self.peak_rss_kib, status_kib(self.proc.pid, "VmRSS"))
        self._sampler = threading.Thread(target=loop, daemon=True)
        self._sampler.start()

    def stop(self):
        """Stops the server; returns its VmHWM (peak resident memory, KiB), read just before."""
        self._sampling.set()
        hwm = status_kib(self.proc.pid, "VmHWM")
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        return hwm


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
    """The ledger's row count, read from the file as another process may (WAL: the server keeps writing)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as conn:
        return conn.execute("SELECT count(*) FROM ledger").fetchone()[0]


# --- one wrk run ---------------------------------------------------------------------------------------------

def run_wrk(url, connections, seconds, lua_args, log_path):
    threads = 1 if connections == 1 else 2
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", LUA_SCRIPT, url,
               "--"] + lua_args
    out = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
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
    if server_name.startswith("trivial"):
        command = [os.path.join(args.build, "bench", "trivial_post_server"), "--port", "0"] + server_name.split()[1:]
    else:
        command = [os.path.join(args.build, "stages", server_name), "--port", "0", "--db", db,
                   "--admin-token", ADMIN_TOKEN, "--quiet"]
        if has_sync:
            command += ["--sync", sync]
    server = Server(command, db, log + ".server.log")
    try:
        if server_name.startswith("trivial"):
            accounts = ",".join(f"none:1:2" for _ in range(threads))
            ledger_before = None
        else:
            accounts = open_accounts(server, threads)
            ledger_before = ledger_rows(db)
        lua_args = [f"accounts={accounts}", f"mode={mode}", f"retry_share={share}"]
        server.sample_rss()
        result = run_wrk(server.url(), connections, args.seconds, lua_args, log + ".wrk.log")
        result["ledger_rows"] = None if ledger_before is None else ledger_rows(db) - ledger_before
    finally:
        hwm = server.stop()
    seconds = result["duration_us"] / 1e6
    row = {"server": server_name, "sync": sync, "connections": connections, "threads": threads, "mode": mode,
           "retry_share": share, "requests": result["requests"], "seconds": round(seconds, 3),
           "requests_per_second": round(result["requests"] / seconds, 1), "p50_ms": result["p50_us"] / 1000,
           "p99_ms": result["p99_us"] / 1000, "max_ms": result["max_us"] / 1000,
           "statuses": result["statuses"], "replayed": result["replayed"], "retries_sent": result["retries_sent"],
           "socket_errors": result["socket_errors"], "ledger_rows": result["ledger_rows"],
           "peak_rss_kib": max(hwm, server.peak_rss_kib), "problems": []}
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


# --- the machine's limits: SQLite alone ----------------------------------------------------------------------

def run_engine(args, run_dir, seconds):
    out = subprocess.run([os.path.join(args.build, "bench", "engine_bench"), "--dir", run_dir,
                          "--seconds", str(seconds)], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("engine_bench failed: " + out.stderr.strip())
    if out.stderr.strip():
        progress(out.stderr.strip())
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


# --- the day and the matrix: the grader's own work -----------------------------------------------------------

def descendants(pid):
    """Every process below pid (Linux: /proc/PID/task/TID/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
                found += kids
                todo += kids
        except OSError:
            pass
    return found


def process_name(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def run_day(args, run_dir, intents):
    grader = os.path.join(args.build, "grader", "grader")
    log = os.path.join(run_dir, f"day-{intents}.jsonl")
    generate = [grader, "day", "generate", "--out", log] + (["--intents", str(intents)] if intents else [])
    out = subprocess.run(generate, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("grader day generate failed: " + out.stderr.strip())
    figures = os.path.join(run_dir, f"day-{intents}.json")
    command = [grader, "day", "replay", log, "--stage", "6", "--bin-dir", os.path.join(args.build, "stages"),
               "--speed", str(DAY_SPEED_MAX), "--json", figures]
    t0 = time.monotonic()
    with open(os.path.join(run_dir, f"day-{intents}.replay.log"), "w") as replay_log:
        proc = subprocess.Popen(command, stdout=replay_log, stderr=subprocess.STDOUT)
        server_peak, status = 0, None
        while status is None:
            pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                status = os.waitstatus_to_exitcode(wait_status)
                grader_peak = usage.ru_maxrss   # KiB on Linux: the grader's own peak resident memory
                break
            for kid in descendants(proc.pid):   # the server, and the one started after each crash
                if process_name(kid).startswith("stage"):
                    server_peak = max(server_peak, status_kib(kid, "VmHWM"))
            time.sleep(RSS_SAMPLE_EVERY_S)
        proc.returncode = status
    wall = time.monotonic() - t0
    with open(figures) as f:
        j = json.load(f)
    s = (j.get("servers") or [{}])[0]
    return {"intents": j.get("intents"), "sends": s.get("sends"), "replay_seconds": s.get("seconds"),
            "sends_per_second": s.get("sends_per_second"), "restarts": s.get("restarts"), "clean": s.get("clean"),
            "wall_seconds": round(wall, 2), "exit_status": status, "grader_peak_rss_kib": grader_peak,
            "server_peak_rss_kib": server_peak, "error": s.get("error")}


def run_matrix(args, run_dir):
    grader = os.path.join(args.build, "grader", "grader")
    t0 = time.monotonic()
    with open(os.path.join(run_dir, "matrix.log"), "w") as log:
        status = subprocess.run([grader, "matrix", "--bin-dir", os.path.join(args.build, "stages"), "--seed", "1"],
                                stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1")).returncode
    return {"exit_status": status, "wall_seconds": round(time.monotonic() - t0, 2)}


# --- the figures: ratios and goals ---------------------------------------------------------------------------

def find(rows, server, sync, connections=16, mode="new", share=0):
    for r in rows:
        if (r["server"], r["sync"], r["connections"], r["mode"], r["retry_share"]) == (server, sync, connections, mode, share):
            return r
    return None


def engine_rate(engine, sync, txns):
    for e in engine:
        if e["sync"] == sync and e["txns_per_request"] == txns:
            return e["requests_per_second"]
    return None


def ratio(a, b):
    return round(a / b, 2) if a and b else None


def ratios(rows, engine):
    s6, s1 = "stage6_scope_ttl", "stage1_naive"
    out = []
    def rps(row):
        return row["requests_per_second"] if row else None
    for sync in ("full", "normal"):
        out.append((f"stage 6 / stage 1 at {sync.upper()}, 16 conns (what idempotency costs)",
                    ratio(rps(find(rows, s6, sync)), rps(find(rows, s1, sync)))))
        out.append((f"stage 6 / engine two-commit at {sync.upper()} (how close to the machine)",
                    ratio(rps(find(rows, s6, sync)), engine_rate(engine, sync, 2))))
    out.append(("stage 6 FULL / NORMAL, 16 conns", ratio(rps(find(rows, s6, "full")), rps(find(rows, s6, "normal")))))
    out.append(("stage 1 FULL / NORMAL, 16 conns", ratio(rps(find(rows, s1, "full")), rps(find(rows, s1, "normal")))))
    for txns in (1, 2):
        out.append((f"engine FULL / NORMAL, {txns} txn{'s' if txns > 1 else ''} per request",
                    ratio(engine_rate(engine, "full", txns), engine_rate(engine, "normal", txns))))
    out.append(("engine two commits / one commit at NORMAL",
                ratio(engine_rate(engine, "normal", 2), engine_rate(engine, "normal", 1))))
    out.append(("stage 6 replay / first execution at NORMAL, 16 conns",
                ratio(rps(find(rows, s6, "normal", mode="retries", share=1.0)), rps(find(rows, s6, "normal")))))
    out.append(("stage 1 / plain cpp-httplib, 16 conns (the HTTP ceiling)",
                ratio(rps(find(rows, s1, "normal")), rps(find(rows, "trivial", None)))))
    return [{"ratio": name, "value": value} for name, value in out]


def goals(rows, engine, day, matrix):
    """Each goal as {goal, met: true, false or null (not measured), figure}."""
    s6, s1 = "stage6_scope_ttl", "stage1_naive"
    out = []
    def compare(text, value, limit, higher_is_better=True, unit=""):
        if value is None:
            return out.append({"goal": text, "met": None, "figure": "not measured"})
        met = value >= limit if higher_is_better else value <= limit
        out.append({"goal": text, "met": met,
                    "figure": f"{value:g}{unit} (goal {'>=' if higher_is_better else '<='} {limit:g}{unit})"})
    n6, n1 = find(rows, s6, "normal"), find(rows, s1, "normal")
    f6 = find(rows, s6, "full")
    compare("stage 6 at NORMAL vs the engine's two-commit rate at NORMAL",
            ratio(n6 and n6["requests_per_second"], engine_rate(engine, "normal", 2)), GOAL_NORMAL_VS_ENGINE, unit="x")
    compare("stage 6 at NORMAL vs stage 1 at NORMAL",
            ratio(n6 and n6["requests_per_second"], n1 and n1["requests_per_second"]), GOAL_NORMAL_VS_STAGE1, unit="x")
    if f6 is None:
        out.append({"goal": "stage 6 at FULL vs the engine's two-commit rate at FULL", "met": None,
                    "figure": "n/a (no --sync)"})
    else:
        compare("stage 6 at FULL vs the engine's two-commit rate at FULL",
                ratio(f6["requests_per_second"], engine_rate(engine, "full", 2)), GOAL_FULL_VS_ENGINE, unit="x")
    for conns, limit in GOAL_P99_MS.items():
        measured = [r for r in rows if r["server"] == s6 and r["connections"] == conns and r["mode"] == "new"]
        worst = max((r["p99_ms"] for r in measured), default=None)
        compare(f"stage 6 p99 at {conns} connections (worst sync)", worst, limit, higher_is_better=False, unit=" ms")
    peak = max((r["peak_rss_kib"] for r in rows if r["server"] == s6), default=None)
    compare("stage 6 server peak RSS under wrk (VmHWM, every row)", peak and round(peak / 1024, 1), GOAL_RSS_MIB,
            higher_is_better=False, unit=" MiB")
    # The day is a longer life: a bigger database, 64 grader workers, each server thread's SQLite page cache.
    compare("stage 6 server peak RSS in the default day", day and round(day["server_peak_rss_kib"] / 1024, 1),
            GOAL_RSS_MIB, higher_is_better=False, unit=" MiB")
    compare("grader matrix wall time", matrix and matrix["wall_seconds"], GOAL_MATRIX_S, higher_is_better=False, unit=" s")
    compare("default day replayed on stage 6 (goal per stage; stage 6 measured)", day and day["wall_seconds"], GOAL_DAY_S, higher_is_better=False, unit=" s")
    return out


# --- the table -----------------------------------------------------------------------------------------------

def print_table(report):
    rows, engine = report["rows"], report["engine"]
    print(f"\nmake bench: commit {report['commit']}, {report['date']}, {report['cores']} cores, "
          f"{report['disk']}")
    print(f"load generator: {report['load_generator']}; it shares the cores with the server")
    print(f"{report['sync_note']}\n")
    print("SQLite alone (engine_bench, one writer, WAL), requests of a transfer's shape per second")
    print(f"  {'sync':<8}{'1 txn/request':>16}{'2 txns/request':>16}{'commits/s (2 txns)':>20}")
    for sync in ("full", "normal"):
        one, two = engine_rate(engine, sync, 1), engine_rate(engine, sync, 2)
        print(f"  {sync.upper():<8}{one or 0:>16,.0f}{two or 0:>16,.0f}{(two or 0) * 2:>20,.0f}")
    print(f"\nHTTP, {report['seconds_per_run']} s per row (wrk --latency, -t2, -t1 for 1 connection)")
    head = f"  {'server':<34}{'sync':<7}{'conns':>5}{'req/s':>10}{'p50 ms':>8}{'p99 ms':>8}{'RSS MiB':>8}  statuses"
    print(head)
    for r in rows:
        statuses = " ".join(f"{s}:{n}" for s, n in sorted(r["statuses"].items()))
        if r["replayed"]:
            statuses += f" replayed:{r['replayed']}"
        sync = r["sync"].upper() if r["sync"] else "-"
        print(f"  {row_name(r['server'], r['mode'], r['retry_share']):<34}{sync:<7}{r['connections']:>5}"
              f"{r['requests_per_second']:>10,.0f}{r['p50_ms']:>8.2f}{r['p99_ms']:>8.2f}"
              f"{r['peak_rss_kib'] / 1024:>8.1f}  {statuses}")
        for p in r["problems"]:
            print(f"    PROBLEM: {p}")
    for sync in ("full", "normal"):
        if not any(r["sync"] == sync for r in rows) and any(r["sync"] for r in rows):
            print(f"  {sync.upper()} rows: n/a (no --sync)")
    print("\nratios")
    for r in report["ratios"]:
        value = "n/a" if r["value"] is None else f"{r['value']:.2f}"
        print(f"  {r['ratio']:<68}{value:>8}")
    day, matrix = report.get("day"), report.get("matrix")
    if day:
        print(f"\nthe day: {day['intents']} intents, {day['sends']} sends on stage 6 in {day['replay_seconds']:.1f} s "
              f"= {day['sends_per_second']:,.0f} sends/s ({day['restarts']} crash restarts, "
              f"{'clean' if day['clean'] else 'DAMAGE'}); wall {day['wall_seconds']} s; peak RSS "
              f"server {day['server_peak_rss_kib'] / 1024:.1f} MiB, grader {day['grader_peak_rss_kib'] / 1024:.1f} MiB")
    if matrix:
        print(f"grader matrix --seed 1: {matrix['wall_seconds']} s wall, exit {matrix['exit_status']}")
    if day or matrix:
        print("(the day and the matrix run the stages at their default sync; --speed "
              f"{DAY_SPEED_MAX}: intents start as fast as 64 workers send them)")
    if report["goals"]:
        print("\ngoals")
        for g in report["goals"]:
            verdict = "n/a" if g["met"] is None else ("met" if g["met"] else "NOT met")
            print(f"  {verdict:<8}{g['goal']:<66}{g['figure']}")
    print(f"\n{report['total_seconds']:.0f} s in all; JSON: {report['json']}")


# --- the run -------------------------------------------------------------------------------------------------

def disk_of(path):
    """The mount (device and type) that holds path: the longest mount point it is under."""
    best = ("?", "?", "")
    with open("/proc/mounts") as f:
        for line in f:
            dev, mnt, fstype = line.split()[:3]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best[2]):
                best = (dev, fstype, mnt)
    return best


def has_sync_option(build):
    out = subprocess.run([os.path.join(build, "stages", "stage6_scope_ttl"), "--help"], capture_output=True, text=True)
    return "--sync" in out.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="LAB.md \"Performance\" explains each figure and ratio.")
    parser.add_argument("--build", default="build", help="the build folder (default: build)")
    parser.add_argument("--seconds", type=int, default=None,
                        help=f"seconds per wrk run (default {DEFAULT_SECONDS}; 1 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 1 s per run, 16 connections only, no matrix, a 2,000-intent day")
    parser.add_argument("--day-intents", type=int, default=None,
                        help="only replay a day of this many intents on stage 6 (make bench-day)")
    parser.add_argument("--out", help="the JSON file (default: BUILD/bench/bench-<date>.json and latest.json)")
    args = parser.parse_args()
    args.build = os.path.abspath(args.build)
    args.seconds = args.seconds or (1 if args.quick else DEFAULT_SECONDS)
    if args.seconds < 1:
        parser.error("--seconds takes a whole number >= 1 (wrk's resolution)")
    if shutil.which("wrk") is None:
        sys.exit("bench.py: wrk is not installed (scripts/ensure-deps.sh bench installs it)")

    t0 = time.monotonic()
    bench_dir = os.path.join(args.build, "bench")
    run_dir = os.path.join(bench_dir, "run")
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    dev, fstype, _ = disk_of(run_dir)
    if fstype in ("tmpfs", "ramfs"):
        progress(f"bench.py: warning: {run_dir} is on a {fstype}: fsync costs nothing there")
    has_sync = has_sync_option(args.build)
    syncs = ["full", "normal"] if has_sync else ["normal"]
    now = datetime.datetime.now().astimezone()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    wrk_version = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout.split("[")[0].strip()
    report = {"commit": commit, "date": now.isoformat(timespec="seconds"), "cores": os.cpu_count(),
              "disk": f"databases on {dev} ({fstype})", "load_generator": f"{wrk_version} with bench/transfers.lua",
              "seconds_per_run": args.seconds,
              "sync_note": ("stages run with --sync full and --sync normal" if has_sync else
                            "stages have no --sync: they run at their default, synchronous=NORMAL (common/db.cc); "
                            "FULL rows n/a (no --sync)"),
              "engine": [], "rows": [], "ratios": [], "goals": [], "day": None, "matrix": None}

    if args.day_intents:
        progress(f"bench-day: generating and replaying a day of {args.day_intents} intents on stage 6 ...")
        report["day"] = run_day(args, run_dir, args.day_intents)
    else:
        runs = plan(args.quick, syncs)
        engine_s = 0.2 if args.quick else ENGINE_SECONDS
        report["wrk_runs"], report["load_seconds"] = len(runs), len(runs) * args.seconds
        progress(f"bench: {len(runs)} wrk runs x {args.seconds} s = {len(runs) * args.seconds} s of load, "
                 f"engine 4 x {engine_s} s, the default day{'' if args.quick else ', the grader matrix'}")
        progress("engine_bench ...")
        report["engine"] = run_engine(args, run_dir, engine_s)
        for i, spec in enumerate(runs, 1):
            progress(f"[{i}/{len(runs)}] {row_name(spec[0], spec[3], spec[4])}, "
                     f"{spec[1].upper() if spec[1] else '-'}, {spec[2]} connections ...")
            report["rows"].append(measure_row(args, run_dir, i, spec, has_sync))
        progress("the day (grader day replay --stage 6) ...")
        report["day"] = run_day(args, run_dir, 2000 if args.quick else None)
        if not args.quick:
            progress("grader matrix --seed 1 ...")
            report["matrix"] = run_matrix(args, run_dir)
        report["ratios"] = ratios(report["rows"], report["engine"])
        report["goals"] = goals(report["rows"], report["engine"], report["day"], report["matrix"])

    report["total_seconds"] = round(time.monotonic() - t0, 1)
    name = ("bench-day-" if args.day_intents else "bench-") + now.strftime("%Y%m%d-%H%M%S") + ".json"
    report["json"] = args.out or os.path.join(bench_dir, name)
    with open(report["json"], "w") as f:
        json.dump(report, f, indent=2)
    if not args.out:
        shutil.copyfile(report["json"], os.path.join(bench_dir, "latest-day.json" if args.day_intents else "latest.json"))
    if args.day_intents:
        d = report["day"]
        print(f"bench-day: commit {commit}, {report['date']}, {report['cores']} cores; {d['intents']} intents, "
              f"{d['sends']} sends on stage 6 in {d['replay_seconds']:.1f} s = {d['sends_per_second']:,.0f} sends/s "
              f"({'clean' if d['clean'] else 'DAMAGE'}); peak RSS server {d['server_peak_rss_kib'] / 1024:.1f} MiB, "
              f"grader {d['grader_peak_rss_kib'] / 1024:.1f} MiB; JSON: {report['json']}")
    else:
        print_table(report)
    shutil.rmtree(run_dir, ignore_errors=True)
    broken = [r for r in report["rows"] if r["problems"]]
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
