#!/usr/bin/env python3
"""multi.py: `make multi`. Stage 6 on PostgreSQL, three instances on one database, and the checks that only
several instances can fail: the grader's requests spread over all three, a crash and a pause across
instances, the day replayed across them, and the books at the end. Zero damage, or exit 1.
docs/reference/beyond-one-process.md "Beyond one process".

    scripts/multi.py [--bin-dir BUILD] [--only grader,crash,pause,day,books] [--day-intents N]

The checks, in order (the instances are A, B, C; scripts/multilib/takeover.py tells the crash and pause):
  grader   grader --stage 6 --url A,B,C: every stage-6 check that needs no restart, requests round-robin
  crash    A killed (SIGKILL) while it holds a key; a retry on B waits for the lease, C takes over, B replays
  pause    A stopped (SIGSTOP) past its lease; B takes over; A resumes and is fenced out (409, never 201)
  day      grader day replay across A,B,C: the audit's damage columns must all be 0
  books    on the database itself: every account's balance = opening - sent + received, money conserved,
           no key left in_progress

Everything runs in a throwaway cluster (scripts/pg-cluster.sh) that is stopped and removed at the end, with
every server, also after a failure, Ctrl-C or SIGTERM. The logs (each instance's, the grader's, PostgreSQL's)
stay in BUILD/multi/. Python 3 standard library only. Progress goes to stderr, the table to stdout; colour
only on a terminal, and never with NO_COLOR.
"""
import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

from multilib.bank_client import BankClient
from multilib.fleet import Fleet, progress
from multilib.check import Check
from multilib.takeover import check_crash, check_pause

INSTANCES = 3                 # A, B, C: the checks need a victim, a witness and a third to take over
LEASE_S = 2                   # short, so a run waits little; the checks move the lab clock past it anyway
DAY_INTENTS = 20_000          # the lab's day (grader day generate's default, logs/day.jsonl): 30-45 s on 2 cores
CHECKS = ["grader", "crash", "pause", "day", "books"]
DAMAGE = ["dup", "lost", "mismatch", "cross", "inconsistent", "misplaced", "conserv"]   # grader day's columns


def run_logged(command, log_path):
    """Runs a command to completion, its output to log_path; returns its exit status. Stopped with us if a
    signal ends the run (stop_on_signal raises in this thread, inside wait())."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1"))
        try:
            return proc.wait()
        finally:
            if proc.poll() is None:
                proc.terminate()
                proc.wait()


def tail(path, lines=15):
    with open(path, errors="replace") as f:
        return ["  | " + line.rstrip() for line in f.readlines()[-lines:]]


# --- the checks the grader runs ------------------------------------------------------------------------------

def check_grader(fleet, grader, log_dir):
    check = Check("grader --stage 6, round-robin")
    log = os.path.join(log_dir, "grader.log")
    status = run_logged([grader, "--url", ",".join(fleet.urls()), "--admin-token", fleet.admin_token,
                         "--stage", "6", "--lease", str(fleet.lease_s)], log)
    if not check.expect(status == 0, f"the grader exited {status}; the end of {log}:"):
        check.problems += tail(log)
    # Its last line: "39 passed, 0 failed, 6 skipped in 4.39s". The skipped ones need a server of their own
    # (other flags, or a restart the grader cannot do with --url): crash and pause play theirs across instances.
    with open(log) as f:
        summary = re.search(r"(\d+) passed, (\d+) failed, (\d+) skipped", f.read())
    if not check.expect(summary is not None, "no summary line in " + log):
        return check.result("")
    passed, failed, skipped = summary.groups()
    return check.result(f"{passed} passed, {failed} failed, {skipped} skipped (they need a server of their own)")


def check_day(fleet, grader, log_dir, intents):
    check = Check(f"day replay, {intents} intents")
    day = os.path.join(log_dir, "day.jsonl")
    out = subprocess.run([grader, "day", "generate", "--intents", str(intents), "--out", day],
                         capture_output=True, text=True)
    if not check.expect(out.returncode == 0, "grader day generate failed: " + out.stderr.strip()):
        return check.result("")
    figures_path, log = os.path.join(log_dir, "day.figures.json"), os.path.join(log_dir, "day.log")
    if os.path.exists(figures_path):
        os.remove(figures_path)   # a previous run's figures must not pass for this one's
    status = run_logged([grader, "day", "replay", day, "--url", ",".join(fleet.urls()), "--admin-token",
                         fleet.admin_token, "--json", figures_path, "--expect-clean"], log)
    if not check.expect(os.path.exists(figures_path), f"grader day replay wrote no figures (exit {status})"):
        check.problems += tail(log)
        return check.result("")
    with open(figures_path) as f:
        row = (json.load(f).get("servers") or [{}])[0]
    if not check.expect(not row.get("error"), f"the replay failed: {row.get('error')}"):
        return check.result("")
    damage = row.get("damage", {})
    check.expect(row.get("clean") is True and status == 0,
                 "damage: " + ", ".join(f"{d} {damage.get(d)}" for d in DAMAGE if damage.get(d)))
    counts = " ".join(f"{d} {damage.get(d, '?')}" for d in DAMAGE)
    # expired: keys past their TTL, retried and executed again, as GET /idempotency-policy says: not damage.
    return check.result(f"{row.get('sends')} sends, {row.get('sends_per_second', 0):.0f}/s; {counts} "
                        f"(expired by policy {damage.get('expired', '?')})")


# --- the books, read on the database itself ------------------------------------------------------------------

def check_books(fleet):
    """After everything: what every account holds is what its ledger says, and no key is stuck."""
    check = Check("books: every account, every key")
    wrong = fleet.sql("""
        WITH sent AS (SELECT from_account AS id, sum(amount) AS amount FROM ledger GROUP BY from_account),
             received AS (SELECT to_account AS id, sum(amount) AS amount FROM ledger GROUP BY to_account)
        SELECT a.id, a.opening_balance, a.balance, COALESCE(s.amount, 0), COALESCE(r.amount, 0)
        FROM accounts a LEFT JOIN sent s ON s.id = a.id LEFT JOIN received r ON r.id = a.id
        WHERE a.balance <> a.opening_balance - COALESCE(s.amount, 0) + COALESCE(r.amount, 0)""")
    for account, opening, balance, sent, received in wrong[:5]:
        check.problems.append(f"account {account}: opening {opening} - sent {sent} + received {received} "
                              f"!= balance {balance}")
    check.expect(len(wrong) <= 5, f"... {len(wrong)} accounts in all")
    # Conservation, per currency: what was opened is either still in an account or paid out.
    totals = fleet.sql("""
        SELECT a.currency, a.opening, a.held, COALESCE(p.paid, 0) FROM
          (SELECT currency, sum(opening_balance) AS opening, sum(balance) AS held FROM accounts GROUP BY currency) a
          LEFT JOIN (SELECT currency, sum(amount) AS paid FROM ledger WHERE kind = 'payout' GROUP BY currency) p
          ON p.currency = a.currency""")
    for currency, opening, held, paid in totals:
        check.expect(int(opening) == int(held) + int(paid),
                     f"{currency}: opened {opening} != held {held} + paid out {paid}")
    # Nothing is in flight any more, so a key still in_progress is one whose holder left it for ever.
    keys = dict(fleet.sql("SELECT state, count(*) FROM idempotency_keys GROUP BY state"))
    stuck = int(keys.get("in_progress", 0))
    check.expect(stuck == 0, f"{stuck} keys still in_progress with nobody left to complete them")
    accounts = int(fleet.sql_value("SELECT count(*) FROM accounts"))
    entries = int(fleet.sql_value("SELECT count(*) FROM ledger"))
    conserved = "money conserved, " if not check.problems else ""
    return check.result(f"{accounts} accounts, {entries} ledger entries: {conserved}{stuck} keys in_progress")


# --- the run -------------------------------------------------------------------------------------------------

def stop_on_signal(signum, frame):
    """SIGTERM or SIGHUP end the run like Ctrl-C does: through the finally blocks, which stop everything."""
    raise KeyboardInterrupt(signal.Signals(signum).name)


def colour(text, code):
    return f"\033[{code}m{text}\033[0m" if sys.stdout.isatty() and not os.environ.get("NO_COLOR") else text


def print_table(results, instances, seconds, leftovers, server):
    width = max(len(r["check"]) for r in results) + 2
    print(f"\nmake multi: {server} on PostgreSQL, {instances} instances on one database, lease {LEASE_S} s\n")
    print(f"  {'check':<{width}}{'result':<8}{'time':>7}  figures")
    for r in results:
        # Padded by hand: the colour's escape codes would count in a format width.
        verdict = colour("pass", "32") if r["ok"] else colour("FAIL", "1;31")
        print(f"  {r['check']:<{width}}{verdict}    {r['seconds']:>6.1f}s  {r['figures']}")
        for p in r["problems"]:
            print(f"      {p}")
    print(f"\n{seconds:.0f} s in all; left running: {', '.join(map(str, leftovers)) or 'nothing'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[2:]))
    parser.add_argument("--bin-dir", default="build", metavar="BUILD",
                        help="the build folder (BUILD/stages, BUILD/grader); default build")
    parser.add_argument("--only", default=",".join(CHECKS), metavar="CHECKS",
                        help=f"some of the checks, comma-separated ({','.join(CHECKS)})")
    parser.add_argument("--day-intents", type=int, metavar="N", default=DAY_INTENTS,
                        help=f"intents in the day (default {DAY_INTENTS})")
    parser.add_argument("--server", metavar="BINARY",
                        help="run these instances instead of BUILD/stages/stage6_scope_ttl: a stage-6 variant such as "
                             "BUILD/stages/mutant_fence-not-checked, to see which check catches it (tests/postgres)")
    args = parser.parse_args()
    only = args.only.split(",")
    if unknown := [c for c in only if c not in CHECKS]:
        parser.error(f"unknown check {', '.join(unknown)} (known: {', '.join(CHECKS)})")
    grader = os.path.join(args.bin_dir, "grader", "grader")
    server = args.server or os.path.join(args.bin_dir, "stages", "stage6_scope_ttl")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not args.server and not os.path.isdir(os.path.join(root, "stages", "6_scope_ttl")):
        parser.error("this copy has no stage 6 (a starter copy: docs/learn/for-learners.md \"For learners\"); make multi runs the "
                     "lab's stage 6, or a server you name with --server")
    for binary in (grader, server):
        if not os.access(binary, os.X_OK):
            parser.error(f"{binary} is missing; run make build (or give --bin-dir)")
    log_dir = os.path.join(args.bin_dir, "multi")
    os.makedirs(log_dir, exist_ok=True)
    for old in glob.glob(os.path.join(log_dir, "instance-*.log")):
        os.remove(old)   # a previous run's restarts must not pass for this one's

    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGHUP, stop_on_signal)
    t0, results, fleet = time.monotonic(), [], Fleet(server, log_dir, INSTANCES, LEASE_S)
    try:
        with fleet:
            progress(f"instances: {', '.join(fleet.urls())} on one database (logs: {log_dir}/)")
            bank = BankClient(fleet.admin_token)
            steps = {"grader": lambda: check_grader(fleet, grader, log_dir),
                     "crash": lambda: check_crash(fleet, bank),
                     "pause": lambda: check_pause(fleet, bank),
                     "day": lambda: check_day(fleet, grader, log_dir, args.day_intents),
                     "books": lambda: check_books(fleet)}
            for n, name in enumerate((c for c in CHECKS if c in only), 1):
                progress(f"[{n}/{len(only)}] {name} ...")
                try:
                    results.append(steps[name]())
                except Exception as e:   # one broken check must not hide the others' verdicts
                    broken = Check(name)
                    broken.expect(False, f"{type(e).__name__}: {e}")
                    results.append(broken.result(""))
                r = results[-1]
                fleet.revive()   # a check that failed half-way may leave A dead or stopped: the next needs it
                progress(f"      {'pass' if r['ok'] else 'FAIL'} ({r['seconds']:.1f} s) {r['figures']}")
    except KeyboardInterrupt as e:
        progress(f"stopped ({str(e) or 'SIGINT'}); everything started is stopped")
        return 130
    except RuntimeError as e:
        progress(f"make multi: {e}")
        return 1
    leftovers = fleet.leftovers()
    print_table(results, INSTANCES, time.monotonic() - t0, leftovers,
                "stage 6" if not args.server else os.path.basename(server))
    if results and all(r["ok"] for r in results) and not leftovers:
        print(colour(f"zero damage across {INSTANCES} instances", "1;32"))
        return 0
    failed = [r["check"] for r in results if not r["ok"]] + (["cleanup"] if leftovers else [])
    print(colour(f"FAILED: {', '.join(failed)}", "1;31"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
