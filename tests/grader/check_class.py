#!/usr/bin/env python3
"""check_class.py: the system tests of `grader class` (docs/teach/grader-for-courses.md "Grading a class"), run by ctest
(tests/system/CMakeLists.txt). Each mode is one test:

  check_class.py class30 GRADER BIN_DIR WORK   the same with `make class-demo`'s class of 30 (reference stages,
      wrong turns, mutants, broken and hostile servers): too long for make test (`make class-check`).
  check_class.py class GRADER BIN_DIR WORK   a made-up class of 8 (scripts/make_class.py small) graded at
      stage 5, seed 1, two at a time. The summary CSV has a row per learner; each learner's verdict and first
      failing check are those of grading them alone with the plain `grader --stage 5 --server CMD --seed 1`
      in their folder; a learner without a command is an error row that says so; the HTML summary passes
      validate_report_html.py --class; a second run grades nobody again (every learner skipped, done.json and
      results.json untouched) and --fresh grades everyone again.
  check_class.py class2 GRADER BIN_DIR WORK  the same with a class of two (stage 2, a server that exits at once),
      run by make test with paths relative to the project's folder, as the Makefile passes them.
  check_class.py timeout GRADER WORK         a learner whose grading outlives --learner-seconds is stopped, with
      its servers, and is a row "timed out after 2 s"; the run does not wait for it.
  check_class.py roster GRADER WORK          a roster's bad lines are usage errors that name the line; a good
      roster's folders are relative to the roster.

Exits 1 with a line per problem. Python 3 standard library only.
"""
import concurrent.futures
import csv
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import make_class  # noqa: E402  the made-up class, shared with `make class-demo`

STAGE, SEED, JOBS = 5, 1, 2
# The conformance checks' random histories, alone and in the class alike: one each (grader/checks/check.h), since
# this grades a class of eight and each learner alone again; with ten the test ran past its 600 s under load.
HISTORIES = ["--histories", "1"]
problems = []


def problem(text):
    print(f"PROBLEM: {text}", flush=True)
    problems.append(text)


def run(args, **kwargs):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run(args, capture_output=True, text=True, env=env, **kwargs)


def summary_rows(out):
    with open(os.path.join(out, "summary.csv"), newline="", encoding="utf-8") as f:
        return {row["learner"]: row for row in csv.DictReader(f)}


class GradingDidNotStart(Exception):
    """Grading a learner alone could not begin at all (no grader to run, a usage error): the check has nothing
    to compare, and says so instead of reporting a verdict mismatch."""


def alone(grader, folder, command, json_path):
    """One learner graded alone, as a learner would: its verdict and first failing check, read from its
    exit status and results.json (a test with max_score 0 was skipped; an empty list: it did not start)."""
    try:
        done = run([grader, "--stage", str(STAGE), "--server", command, "--seed", str(SEED), *HISTORIES, "--json", json_path],
                   cwd=folder, timeout=600)
    except OSError as e:  # the grader itself did not start: there is no verdict to compare
        raise GradingDidNotStart(f"the grader {grader} could not be run in {folder}: {e}") from e
    if done.returncode == 2:  # a usage error: the grader refused its own command line, it graded nothing
        raise GradingDidNotStart(f"the grader refused its command line in {folder} (exit 2): {done.stderr.strip()}")
    try:
        with open(json_path, encoding="utf-8") as f:
            tests = json.load(f)["tests"]
    except (OSError, ValueError, KeyError):
        return "error", ""
    if not tests:
        return "error", ""
    failed = [t for t in tests if t["max_score"] > 0 and t["status"] != "passed"]
    verdict = "pass" if done.returncode == 0 and not failed else "fail"
    return verdict, failed[0]["name"].split(":")[0] if failed else ""


def mtimes(out, names):
    return {(n, f): os.stat(os.path.join(out, n, f)).st_mtime_ns
            for n in names for f in ("done.json", "results.json") if os.path.exists(os.path.join(out, n, f))}


def check_class(grader, bin_dir, work, learners, kinds):
    shutil.rmtree(work, ignore_errors=True)
    submissions, out = os.path.join(work, "submissions"), os.path.join(work, "out")
    make_class.write(learners, submissions)
    names = [name for name, _, _ in learners]
    line = [grader, "class", "--submissions", submissions, "--stage", str(STAGE), "--seed", str(SEED), *HISTORIES,
            "--jobs", str(JOBS), "--out", out]

    started = time.monotonic()
    first = run(line, timeout=max(900, 90 * len(learners)))
    print(first.stdout, first.stderr, f"(first run: {time.monotonic() - started:.1f}s)", sep="\n", flush=True)
    if first.returncode != 0:
        problem(f"the first run exited {first.returncode}")
    rows = summary_rows(out)
    if sorted(rows) != sorted(names):
        problem(f"summary.csv has rows {sorted(rows)}, the class is {sorted(names)}")

    # Each learner alone, two at a time (as the class run graded them), into a folder of its own.
    alone_dir = os.path.join(work, "alone")
    os.makedirs(alone_dir)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        verdicts = {name: pool.submit(alone, grader, os.path.join(submissions, name), command,
                                      os.path.join(alone_dir, name + ".json"))
                    for name, command, _ in learners if command is not None}
    try:
        results = {name: future.result() for name, future in verdicts.items()}
    except GradingDidNotStart as e:
        problem(f"grading a learner alone did not start, so no row was compared: {e}")
        return
    print(f"(each alone: {time.monotonic() - started:.1f}s)", flush=True)
    for name, expected in results.items():
        row = rows.get(name, {})
        got = (row.get("verdict"), row.get("first_failing_check"))
        print(f"  {name}: class {got}, alone {expected}", flush=True)
        if got != expected:
            problem(f"{name}: the class run says {got}, graded alone it is {expected}")
    for name, command, _ in learners:
        if command is None and "no lab-server.cmd" not in rows.get(name, {}).get("reason", ""):
            problem(f"{name} has no lab-server.cmd, its row should say so: {rows.get(name)}")
    # The made-up class has each kind of row it was made with (the class of 8 and of 30: pass, fail, error).
    if {row["verdict"] for row in rows.values()} != kinds:
        problem(f"the verdicts are {sorted({row['verdict'] for row in rows.values()})}, not {sorted(kinds)}")

    page = run([sys.executable, os.path.join(HERE, "validate_report_html.py"), os.path.join(out, "summary.html"),
                "--class"])
    print(page.stdout, page.stderr, flush=True)
    if page.returncode != 0:
        problem("summary.html is not a self-contained class summary")

    # The second run: nothing is graded twice.
    before = mtimes(out, names)
    second = run(line, timeout=120)
    print(second.stdout, second.stderr, flush=True)
    skipped = [n for n in names if any(n in l and "skipped (graded before)" in l for l in second.stdout.splitlines())]
    if second.returncode != 0 or sorted(skipped) != sorted(names) or "0 graded" not in second.stdout:
        problem(f"the second run did not skip every learner (exit {second.returncode}, skipped {skipped})")
    if mtimes(out, names) != before or len(before) < len(names):
        problem("the second run touched a learner's done.json or results.json (or one has no done.json)")
    if summary_rows(out).keys() != rows.keys():
        problem("the second run's summary.csv has other rows")

    # --fresh grades a learner again: a one-learner class keeps it short.
    fresh_subs = os.path.join(work, "fresh")
    make_class.write([l for l in learners if l[0] == "erin-exits-at-once"], fresh_subs)
    fresh_line = [grader, "class", "--submissions", fresh_subs, "--stage", str(STAGE), *HISTORIES,
                  "--out", os.path.join(work, "fresh-out")]
    run(fresh_line, timeout=60)
    again = run(fresh_line + ["--fresh"], timeout=60)
    if "1 graded, 0 skipped" not in again.stdout:
        problem(f"--fresh did not grade again: {again.stdout}")
    # Another --histories is another grading (more histories may find what fewer did not): graded again.
    more = run([grader, "class", "--submissions", fresh_subs, "--stage", str(STAGE), "--histories", "2",
                "--out", os.path.join(work, "fresh-out")], timeout=60)
    if "1 graded, 0 skipped" not in more.stdout:
        problem(f"a run with another --histories skipped the learner graded with {HISTORIES[1]}: {more.stdout}")


def check_timeout(grader, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    roster = os.path.join(work, "roster.tsv")
    marker = "987654"  # a sleep nobody else runs, to see it is gone afterwards
    with open(roster, "w", encoding="utf-8") as f:
        f.write(f"# name, folder, command\nslow\t.\tsleep {marker}\n")
    started = time.monotonic()
    done = run([grader, "class", "--roster", roster, "--stage", "1", "--learner-seconds", "2",
                "--out", os.path.join(work, "out")], timeout=60)
    seconds = time.monotonic() - started
    print(done.stdout, done.stderr, f"({seconds:.1f}s)", sep="\n", flush=True)
    row = summary_rows(os.path.join(work, "out")).get("slow", {})
    if row.get("verdict") != "error" or not row.get("reason", "").startswith("timed out after 2 s"):
        problem(f"the slow learner's row is not 'timed out after 2 s': {row}")
    if seconds > 15:  # 2 s of grading, the SIGTERM grace; the grader's own start timeout is 20 s
        problem(f"the run took {seconds:.1f}s: it waited for the slow learner beyond its time limit")
    left = run(["pgrep", "-f", f"sleep {marker}"])
    if left.stdout.strip():
        problem(f"the slow learner's server is still running after the run: pids {left.stdout.split()}")


def check_roster(grader, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "sub", "ann"))
    roster = os.path.join(work, "roster.tsv")
    cases = [  # (the roster's text, what the error must say)
        ("# comment\n\nann\tsub/ann\tsh -c 'exit 0'\nbad line without tabs\n", "roster.tsv:4: a line is name<TAB>folder<TAB>command"),
        ("../up\tsub/ann\tsh -c 'exit 0'\n", "roster.tsv:1: the name '../up' starts with '.'"),
        ("a/b\tsub/ann\tsh -c 'exit 0'\n", "roster.tsv:1: the name 'a/b' has a '/'"),
        ("ann\tsub/ann\tx\nann\tsub/ann\ty\n", "roster.tsv:2: the name 'ann' is on an earlier line"),
        ("ann\tsub/ann\t \n", "roster.tsv:1: the command is empty"),
    ]
    for text, expected in cases:
        with open(roster, "w", encoding="utf-8") as f:
            f.write(text)
        done = run([grader, "class", "--roster", roster, "--out", os.path.join(work, "out")], timeout=30)
        if done.returncode != 2 or expected not in done.stderr:
            problem(f"roster {text!r}: exit {done.returncode}, stderr {done.stderr!r}; expected 2 and {expected!r}")
    both = run([grader, "class", "--roster", roster, "--submissions", work])
    if both.returncode != 2 or "exactly one of --submissions and --roster" not in both.stderr:
        problem(f"--roster with --submissions is not a usage error: {both.stderr!r}")
    # A good roster, run from another folder: the learner's folder is found relative to the roster.
    with open(roster, "w", encoding="utf-8") as f:
        f.write("ann\tsub/ann\tsh -c 'pwd >&2; exit 4'\nnobody\tsub/nobody\tsh -c 'exit 0'\n")
    done = run([grader, "class", "--roster", roster, "--stage", "1", "--out", os.path.join(work, "out")],
               cwd="/", timeout=60)
    rows = summary_rows(os.path.join(work, "out"))
    ann_report = open(os.path.join(work, "out", "ann", "report.txt"), encoding="utf-8").read()
    if done.returncode != 0 or os.path.join(work, "sub", "ann") not in ann_report:
        problem(f"ann's server did not run in sub/ann (exit {done.returncode}): {ann_report!r}")
    if "does not exist" not in rows.get("nobody", {}).get("reason", ""):
        problem(f"a roster folder that is not there is not a row saying so: {rows.get('nobody')}")


def main(argv):
    # Every path is made absolute here, once: grading a learner alone runs in the learner's folder (cwd=), where
    # a path relative to the caller's folder (the Makefile passes build/grader/grader) names nothing.
    paths = [os.path.abspath(a) for a in argv[2:]]
    if len(argv) == 5 and argv[1] in ("class", "class30", "class2"):
        grader, bin_dir, work = paths
        make, kinds = {"class": (make_class.small, {"pass", "fail", "error"}),
                       "class30": (make_class.demo, {"pass", "fail", "error"}),
                       "class2": (make_class.two, {"fail", "error"})}[argv[1]]
        check_class(grader, bin_dir, work, make(bin_dir), kinds)
    elif len(argv) == 4 and argv[1] in ("timeout", "roster"):
        (check_timeout if argv[1] == "timeout" else check_roster)(*paths)
    else:
        sys.exit(__doc__)
    for p in problems:
        print(f"check_class.py: {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main(sys.argv)
