"""report.py: the figures read together: the ratios, the goals (each met or NOT met, with its figure), and
the one table `make bench` prints. Works on the report dict scripts/bench.py builds (and writes as JSON).
"""
from benchlib.grader_runs import DAY_SPEED_MAX
from benchlib.http_rows import row_name

# The goals of the issue, with their thresholds.
GOAL_NORMAL_VS_ENGINE = 0.5   # stage 6 at NORMAL >= this x the engine's two-commit rate at NORMAL
GOAL_NORMAL_VS_STAGE1 = 0.5   # ... and >= this x stage 1 at NORMAL
GOAL_FULL_VS_ENGINE = 1.1     # stage 6 at FULL >= this x the engine's two-commit rate at FULL (one fsync, not two)
GOAL_P99_MS = {16: 20, 64: 50}
GOAL_RSS_MIB = 30
GOAL_MATRIX_S = 30
GOAL_DAY_S = 30


def find(rows, server, sync, connections=16, mode="new", share=0):
    """The row measured with these settings, or None (not in this run's plan)."""
    for r in rows:
        if (r["server"], r["sync"], r["connections"], r["mode"], r["retry_share"]) == (server, sync, connections, mode, share):
            return r
    return None


def engine_rate(engine, sync, txns, claim_with_next_commit=False):
    """engine_bench's requests per second at this sync and transactions per request, or None."""
    for e in engine:
        if (e["sync"], e["txns_per_request"], e.get("claim_with_next_commit", False)) == (sync, txns, claim_with_next_commit):
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
    # At FULL, stage 6 commits its claim at NORMAL and its completion at FULL: one fsync per request; the
    # engine measures that shape too.
    out.append(("stage 6 / engine at FULL, claim with the next commit (its shape)",
                ratio(rps(find(rows, s6, "full")), engine_rate(engine, "full", 2, claim_with_next_commit=True))))
    out.append(("stage 6 FULL / NORMAL, 16 conns", ratio(rps(find(rows, s6, "full")), rps(find(rows, s6, "normal")))))
    out.append(("stage 1 FULL / NORMAL, 16 conns", ratio(rps(find(rows, s1, "full")), rps(find(rows, s1, "normal")))))
    for txns in (1, 2):
        out.append((f"engine FULL / NORMAL, {txns} txn{'s' if txns > 1 else ''} per request",
                    ratio(engine_rate(engine, "full", txns), engine_rate(engine, "normal", txns))))
    out.append(("engine two commits / one commit at NORMAL",
                ratio(engine_rate(engine, "normal", 2), engine_rate(engine, "normal", 1))))
    out.append(("stage 6 replay / first execution at NORMAL, 16 conns",
                ratio(rps(find(rows, s6, "normal", mode="retries", share=1.0)), rps(find(rows, s6, "normal")))))
    pg1, pg3 = find(rows, "postgres x1", "full", 15), find(rows, "postgres x3", "full", 15)
    out.append(("3 PostgreSQL instances / 1 PostgreSQL instance, FULL, 15 conns", ratio(rps(pg3), rps(pg1))))
    out.append(("stage 6: 3 PostgreSQL instances (15 conns) / SQLite (16), FULL",
                ratio(rps(pg3), rps(find(rows, s6, "full")))))
    out.append(("stage 1 / plain cpp-httplib, 16 conns (the HTTP ceiling)",
                ratio(rps(find(rows, s1, "normal")), rps(find(rows, "trivial", None)))))
    return [{"ratio": name, "value": value} for name, value in out]


def goals(rows, engine, day, matrix):
    """Each goal as {goal, met: true, false or null (not measured), figure}."""
    day = day if day and day["default_day"] else None   # the day's goals are the default day's (not --quick's)
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
    compare("grader matrix wall time", matrix and matrix["wall_seconds"], GOAL_MATRIX_S, higher_is_better=False, unit=" s")
    compare("default day replayed on stage 6 (goal per stage; stage 6 measured)", day and day["wall_seconds"], GOAL_DAY_S, higher_is_better=False, unit=" s")
    return out


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
    next_commit = engine_rate(engine, "full", 2, claim_with_next_commit=True)
    if next_commit:
        print(f"  FULL, the claim fsynced with the next commit (stages 4-6 at --sync full): {next_commit:,.0f} requests/s")
    print(f"\nHTTP, {report['wrk_runs']} rows x {report['seconds_per_run']} s (wrk --latency, -t2; -t1 for 1 connection);"
          " a fresh server and database per row")
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
    if rows and not any(r["problems"] for r in rows):
        print("  checked: no unexpected status or socket error; each stage row's ledger grew by its executed 201s\n"
              "  (201s not marked Idempotent-Replayed), plus at most one request in flight per connection")
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
            print(f"  {verdict:<8}{g['goal']:<70}{g['figure']}")
    print(f"\n{report['total_seconds']:.0f} s in all; JSON: {report['json']}")
