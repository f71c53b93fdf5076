#!/usr/bin/env python3
"""bench.py: `make bench` and `make bench-day`. One run, one table: the machine's limits for this work, each
stage's throughput and latency under the same load, the ratios between them, the day replay, the grader's
matrix, and the goals each marked met or NOT met. docs/reference/plumbing.md "Performance".

    scripts/bench.py [--build DIR] [--seconds N] [--quick] [--out FILE]
    scripts/bench.py --day-intents N [--build DIR]        # make bench-day: only the day, N intents

The instruments (bench/CMakeLists.txt): engine_bench (SQLite alone), trivial_post_server (HTTP alone),
bench/transfers.lua (wrk's requests), wrk itself (Debian's wrk 4.1, the load generator). Every server runs on a
fresh database in BUILD/bench/run/, on the disk of the build folder, never on a tmpfs: there fsync is free.
wrk and the server share the machine's cores, so every figure is "server plus load generator on N cores".

Python 3 standard library only. Writes BUILD/bench/bench-<date>.json and BUILD/bench/latest.json (or --out).
Progress goes to stderr, the table to stdout; no colour anywhere, so a log reads like a terminal.
The parts are in scripts/benchlib/: processes.py (servers, /proc), http_rows.py (one wrk row and its checks),
engine.py (SQLite alone), grader_runs.py (the day, the matrix), report.py (ratios, goals, the table).
"""
import argparse
import contextlib
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib.engine import run_engine
from benchlib.grader_runs import run_day, run_matrix
from benchlib.http_rows import measure_row, row_name
from benchlib.report import goals, print_table, ratios
from stage_servers import stages

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = [row["binary"] for row in stages()]   # stages/stage_servers.json: stage 1 first
DEFAULT_SECONDS = 4                  # per wrk run: 25 runs, so `make bench` stays near 3 of its 5 minutes
ENGINE_SECONDS = 2.0                 # per engine measurement (five of them)


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
    # Beyond one process: stage 6 on PostgreSQL, one instance and three behind one database, at FULL
    # (synchronous_commit=on). 15 connections: wrk divides them among its 3 threads, one per instance.
    runs += [("postgres x1", "full", 15, "new", 0), ("postgres x3", "full", 15, "new", 0)]
    return runs


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


def has_sync_option(build, stage="stage6_scope_ttl"):
    """Whether the stage binaries take --sync (older builds did not: their FULL rows are n/a)."""
    out = subprocess.run([os.path.join(build, "stages", stage), "--help"], capture_output=True, text=True)
    return "--sync" in out.stdout


@contextlib.contextmanager
def postgres_cluster(wanted):
    """A throwaway PostgreSQL cluster (scripts/pg-cluster.sh) for the PostgreSQL rows; its socket directory,
    or None when no row wants one. Stopped and removed however the run ends."""
    if not wanted:
        yield None
        return
    pg_dir = tempfile.mkdtemp(prefix="labpg-bench.", dir="/tmp")   # short: it holds the socket
    script = os.path.join(ROOT, "scripts", "pg-cluster.sh")
    try:
        subprocess.run(["bash", script, "start", pg_dir], check=True, stdout=subprocess.DEVNULL)
        yield pg_dir
    finally:
        subprocess.run(["bash", script, "stop", pg_dir], stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="docs/reference/plumbing.md \"Performance\" explains each figure and ratio.")
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
        report["day"] = run_day(args, run_dir, args.day_intents, show_progress=True)
    else:
        runs = plan(args.quick, syncs)
        engine_s = 0.2 if args.quick else ENGINE_SECONDS
        report["wrk_runs"], report["load_seconds"] = len(runs), len(runs) * args.seconds
        progress(f"bench: {len(runs)} wrk runs x {args.seconds} s = {len(runs) * args.seconds} s of load, "
                 f"engine 5 x {engine_s} s, the default day{'' if args.quick else ', the grader matrix'}")
        progress("engine_bench ...")
        report["engine"] = run_engine(args, run_dir, engine_s)
        with postgres_cluster(any(spec[0].startswith("postgres") for spec in runs)) as args.pg_dir:
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
