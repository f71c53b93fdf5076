#!/usr/bin/env python3
"""mutation_score.py: `make mutation-score`, the grader against the mistakes nobody listed. docs/teach/grader.md "The grader",
"Mutation score".

    scripts/mutation_score.py [--build build] [--sample 100] [--budget-minutes 20] [--seed 1] [--jobs N]
                              [--min-score 95] [--list] [--only ID,...]

The hand-written mutants (grader/mutants/, `make mutants`) are the mistakes we thought of. This writes its own:
every one-line edit that the operators of scripts/mutation/operators.py make to the lesson code of stages
2-6 (key_table.cc, money_handler.cc, idempotency_policy.cc, sweeper.cc). It draws a sample, the same for the
same --seed, spread over the operators; builds each mutant (stages/mutation_subjects.cmake: one file
recompiled, the stage's other files shared); grades it at its own stage with one seed; and reports

    the mutation score = killed / (graded - reviewed equivalents)

with every survivor listed: file:line, the edit, the checks that ran. A mutant that does not compile is
stillborn: no server, nothing to grade, not counted. A mutant listed in scripts/mutation/equivalent.txt (each
with one line on why no test could tell it from the stage) is not graded; every other survivor is a gap in
the grader, to close with a check.

Bounded: --sample mutants at most, and no new mutant is started after --budget-minutes; builds run one at a
time, gradings --jobs at once. The results, one record per mutant, are written to
<build>/mutation-score/results.json. Exit status 0 when the score is at least --min-score, 1 when it is not,
2 on a usage error. Python 3 standard library only.
"""
import argparse
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutation"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import operators  # noqa: E402
import stage_servers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EQUIVALENTS = os.path.join(ROOT, "scripts", "mutation", "equivalent.txt")
LESSON_FILES = ["key_table.cc", "money_handler.cc", "idempotency_policy.cc", "sweeper.cc"]  # as in
# stages/mutation_subjects.cmake (LAB_MUTATION_LESSON_FILES)
# The server command a learner grades a stage server with (docs/teach/grader.md "The grader").
SERVER_FLAGS = "--port {port} --db {db} --admin-token {admin_token} --lab-controls --quiet"
# The grader bounds every check (grader/checks/check.h:kCheckTimeBound); a whole grading of a stage takes
# seconds on a right server. A mutant's grading past this is stopped and counted as killed by the bound.
GRADING_LIMIT_S = 600
CHECK_LINE = re.compile(r"^\s+(PASS|FAIL|SKIP)\s+stage\d\s+(\S+)")


def subjects():
    """(stage number, binary, folder, file) for each lesson file of stages 2-6."""
    for row in stage_servers.stages():
        if row["stage"] < 2:
            continue
        for name in LESSON_FILES:
            if os.path.exists(os.path.join(ROOT, "stages", row["folder"], name)):
                yield row["stage"], row["binary"], row["folder"], name


def all_mutants():
    """Every mutant, with the subject it belongs to."""
    found = []
    for stage, binary, folder, name in subjects():
        path = f"stages/{folder}/{name}"
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        for m in operators.mutants_of(path, text):
            found.append({"mutant": m, "stage": stage, "binary": binary, "file": name, "text": text})
    return found


def read_equivalents():
    """id -> why, from scripts/mutation/equivalent.txt: `m-xxxxxxxxxx  why` a line; # starts a comment."""
    reviewed = {}
    with open(EQUIVALENTS, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            ident, _, why = line.partition(" ")
            if not re.fullmatch(r"m-[0-9a-f]{10}", ident) or not why.strip():
                sys.exit(f"{EQUIVALENTS}:{number}: expected `m-<10 hex digits> <why it is equivalent>`")
            reviewed[ident] = why.strip()
    return reviewed


def draw(candidates, size, seed):
    """A sample spread over the operators: each operator's mutants shuffled, then taken in turn."""
    rng = random.Random(seed)
    by_operator = {name: [] for name in operators.OPERATORS}
    for c in candidates:
        by_operator[c["mutant"].operator].append(c)
    for group in by_operator.values():
        rng.shuffle(group)
    sample = []
    while len(sample) < size and any(by_operator.values()):
        for name in operators.OPERATORS:
            if by_operator[name] and len(sample) < size:
                sample.append(by_operator[name].pop())
    return sample


class Run:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.out_dir = os.path.join(self.build, "mutation-score")
        self.grader = os.path.join(self.build, "grader", "grader")
        self.results = []
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.done = 0
        self.total = 0
        self.children = set()  # the gradings running, stopped on Ctrl-C
        self.terminal = sys.stdout.isatty()

    def copy_path(self, c):
        return os.path.join(self.build, "stages", "mutation", c["binary"], c["file"])

    def target(self, c):
        return f"mutation_{c['binary']}_{os.path.splitext(c['file'])[0]}"

    def write_copy(self, c, text):
        path = self.copy_path(c)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def restore_copies(self):
        for _, binary, folder, name in subjects():
            with open(os.path.join(ROOT, "stages", folder, name), encoding="utf-8") as f:
                text = f.read()
            self.write_copy({"binary": binary, "file": name}, text)

    def cmake_build(self, target):
        return subprocess.run(["cmake", "--build", self.build, "--target", target, "-j", str(self.args.jobs)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def build_mutant(self, c):
        """The mutant's binary, or None with the compiler's first error when it does not compile."""
        m = c["mutant"]
        self.write_copy(c, operators.apply(c["text"], m))
        built = self.cmake_build(self.target(c))
        if built.returncode != 0:
            errors = [line for line in built.stdout.splitlines() if "error" in line]
            return None, (errors[0] if errors else built.stdout.strip().splitlines()[-1:] or ["?"])
        binary = os.path.join(self.out_dir, "bin", m.id)
        os.makedirs(os.path.dirname(binary), exist_ok=True)
        shutil.copy2(os.path.join(self.build, "stages", self.target(c)), binary)
        return binary, None

    def grade(self, c, binary):
        """Grades the mutant at its stage: (verdict, checks that ran, the failed checks with their first finding,
        seconds, the output's last lines)."""
        command = [self.grader, "--stage", str(c["stage"]), "--seed", str(self.args.seed),
                   "--server", f"{binary} {SERVER_FLAGS}"]
        t0 = time.monotonic()
        ran, failed = [], []
        env = dict(os.environ, NO_COLOR="1")
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                 start_new_session=True)
        with self.lock:
            self.children.add(child)
        timer = threading.Timer(GRADING_LIMIT_S, lambda: os.killpg(child.pid, signal.SIGKILL))
        timer.start()
        tail, findings, last_failed = [], {}, None
        try:
            for line in child.stdout:
                tail = (tail + [line.rstrip()])[-5:]
                check = CHECK_LINE.match(line)
                if check:
                    ran.append(check.group(2))
                    last_failed = check.group(2) if check.group(1) == "FAIL" else None
                    if last_failed:
                        failed.append(last_failed)
                elif last_failed and last_failed not in findings:
                    findings[last_failed] = line.strip()[:300]  # the first finding: "anomaly: what"
            status = child.wait()
        finally:
            timer.cancel()
            with self.lock:
                self.children.discard(child)
        seconds = time.monotonic() - t0
        if status == -signal.SIGKILL:
            failed = failed or [f"(graded past {GRADING_LIMIT_S} s)"]
        elif not failed and status != 0:
            failed = ["(the grader: " + (tail[-1] if tail else "no output") + ")"]
        verdict = "killed" if failed else "survived"
        return verdict, ran, [{"check": c, "finding": findings.get(c, "")} for c in failed], seconds, tail

    def record(self, c, verdict, **fields):
        m = c["mutant"]
        entry = {"id": m.id, "path": m.path, "line": m.line, "operator": m.operator, "before": m.before.strip(),
                 "after": m.after.strip(), "stage": c["stage"], "verdict": verdict, **fields}
        with self.lock:
            self.results.append(entry)
            self.done += 1
            self.progress(entry)

    def progress(self, entry):
        counts = {v: sum(1 for r in self.results if r["verdict"] == v) for v in ("killed", "survived", "stillborn")}
        elapsed = time.monotonic() - self.started
        text = (f"[{self.done}/{self.total}] killed {counts['killed']}, survived {counts['survived']}, stillborn "
                f"{counts['stillborn']}  {int(elapsed // 60)}m{int(elapsed % 60):02d}s  "
                f"{entry['path']}:{entry['line']} {entry['operator']}: {entry['verdict']}")
        if self.terminal:
            width = shutil.get_terminal_size().columns
            print("\r\033[2K" + text[:width - 1], end="", flush=True)
        else:
            print(text, flush=True)

    def over_budget(self):
        return time.monotonic() - self.started > self.args.budget_minutes * 60

    def execute(self, sample):
        """Builds one mutant at a time (one build tree), grades --jobs at once."""
        self.total = len(sample)
        ready = queue.Queue(maxsize=self.args.jobs)

        def grade_worker():
            while True:
                item = ready.get()
                if item is None:
                    return
                c, binary = item
                verdict, ran, failed, seconds, tail = self.grade(c, binary)
                self.record(c, verdict, checks_ran=len(ran), failed_checks=failed, seconds=round(seconds, 1),
                            **({"grader_tail": tail} if verdict == "survived" and not ran else {}))
                os.remove(binary)

        workers = [threading.Thread(target=grade_worker) for _ in range(self.args.jobs)]
        for w in workers:
            w.start()
        skipped = []
        try:
            for c in sample:
                if self.over_budget():
                    skipped.append(c)
                    continue
                binary, error = self.build_mutant(c)
                if binary is None:
                    self.record(c, "stillborn", compiler=error.strip()[:300])
                else:
                    ready.put((c, binary))
        finally:
            for _ in workers:
                ready.put(None)
            for w in workers:
                w.join()
            self.restore_copies()
        return skipped


def report(run, equivalent, skipped, population, args):
    results = sorted(run.results, key=lambda r: (r["path"], r["line"], r["operator"]))
    graded = [r for r in results if r["verdict"] in ("killed", "survived")]
    killed = [r for r in graded if r["verdict"] == "killed"]
    survivors = [r for r in graded if r["verdict"] == "survived"]
    stillborn = [r for r in results if r["verdict"] == "stillborn"]
    score = 100.0 * len(killed) / len(graded) if graded else 0.0
    elapsed = time.monotonic() - run.started
    if run.terminal:
        print("\r\033[2K", end="")
    print(f"\nmutation score: {score:.1f}% ({len(killed)} killed of {len(graded)} graded; goal {args.min_score}%)")
    print(f"  of {population} operator mutants of stages 2-6, a sample of {len(results) + len(equivalent) + len(skipped)} "
          f"(seed {args.seed}): {len(graded)} graded, {len(stillborn)} stillborn (do not compile), "
          f"{len(equivalent)} reviewed equivalent (not graded), {len(skipped)} not reached in the budget "
          f"({args.budget_minutes} min); {elapsed / 60:.1f} min, {args.jobs} at once")
    by_operator = {}
    for r in graded:
        k, n = by_operator.get(r["operator"], (0, 0))
        by_operator[r["operator"]] = (k + (r["verdict"] == "killed"), n + 1)
    print("  by operator: " + ", ".join(f"{name} {k}/{n}" for name, (k, n) in sorted(by_operator.items())))
    for r in survivors:
        print(f"SURVIVED {r['id']}  {r['path']}:{r['line']} {r['operator']}: `{r['before']}` -> "
              f"`{r['after'] or '(deleted)'}`  (stage {r['stage']}: {r['checks_ran']} checks ran, none failed)")
    if survivors:
        print(f"  each survivor is a gap in the grader, or, once reviewed, a line of {os.path.relpath(EQUIVALENTS, ROOT)}")
    out = os.path.join(run.out_dir, "results.json")
    os.makedirs(run.out_dir, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"score": round(score, 2), "goal": args.min_score, "seed": args.seed, "sample": args.sample,
                   "population": population, "graded": len(graded), "killed": len(killed),
                   "survived": len(survivors), "stillborn": len(stillborn), "equivalent": len(equivalent),
                   "not_reached": len(skipped), "seconds": round(elapsed, 1), "mutants": results}, f, indent=1)
    print(f"  results: {os.path.relpath(out)}")
    return 0 if graded and score >= args.min_score else 1


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--build", default="build", help="the configured build tree (default build)")
    parser.add_argument("--sample", type=int, default=100, help="mutants to draw at most (default 100)")
    parser.add_argument("--budget-minutes", type=float, default=20, help="start no mutant after this (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the sample and the grader's seed (default 1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="gradings at once (default: cores)")
    parser.add_argument("--min-score", type=float, default=95, help="the goal, in percent (default 95)")
    parser.add_argument("--only", default="", help="grade only these mutant ids (comma-separated)")
    parser.add_argument("--list", action="store_true", help="list every mutant (id, file:line, edit) and stop")
    args = parser.parse_args(argv[1:])
    if args.sample < 1 or args.jobs < 1 or args.budget_minutes <= 0:
        parser.error("--sample, --jobs and --budget-minutes must be positive")

    reviewed = read_equivalents()
    everything = all_mutants()
    ids = [c["mutant"].id for c in everything]
    if len(set(ids)) != len(ids):
        sys.exit("mutation_score.py: two mutants share an id (operators.py: Mutant.id)")
    for ident in reviewed:
        if ident not in ids:
            print(f"note: {os.path.relpath(EQUIVALENTS, ROOT)} lists {ident}, which is no mutant of today's code "
                  "(the line changed): review it again", file=sys.stderr)
    if args.list:
        for c in everything:
            print(c["mutant"].id, c["mutant"].describe(), "(reviewed equivalent)" if c["mutant"].id in reviewed else "")
        return 0

    if args.only:
        wanted = set(args.only.split(","))
        sample = [c for c in everything if c["mutant"].id in wanted]
        if len(sample) != len(wanted):
            parser.error("--only names ids that are no mutant (see --list)")
    else:
        sample = draw(everything, args.sample, args.seed)
    equivalent = [c for c in sample if c["mutant"].id in reviewed]
    to_grade = [c for c in sample if c["mutant"].id not in reviewed]

    run = Run(args)
    if not os.path.exists(run.grader):
        sys.exit(f"mutation_score.py: no grader at {run.grader}: build first (make build)")
    print(f"mutation score: {len(everything)} operator mutants of stages 2-6, drawing {len(sample)} (seed {args.seed}),"
          f" budget {args.budget_minutes} min, {args.jobs} gradings at once", flush=True)
    run.restore_copies()
    print("building the stages' parts once (cmake --build --target mutation_subjects) ...", flush=True)
    baseline = run.cmake_build("mutation_subjects")
    if baseline.returncode != 0:
        print(baseline.stdout[-3000:])
        sys.exit("mutation_score.py: the unmutated subjects do not build")

    def stop(signum, frame):
        with run.lock:
            for child in run.children:
                os.killpg(child.pid, signal.SIGKILL)
        run.restore_copies()
        sys.exit(130)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    skipped = run.execute(to_grade)
    return report(run, equivalent, skipped, len(everything), args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
