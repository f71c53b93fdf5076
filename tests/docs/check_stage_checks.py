#!/usr/bin/env python3
"""check_stage_checks.py: each stage's chapter ends with what the grader checks for that stage, as the grader says.

    python3 tests/docs/check_stage_checks.py --grader BIN [REPO]           check
    python3 tests/docs/check_stage_checks.py --grader BIN [REPO] --write   rewrite the sections

A stage's chapter is the "chapter" of its row in stages/stage_servers.json (docs/learn/stage-N-*.md). Its last
section, "## What the grader checks", lists every check `grader --list` names for that stage (stage 1's
chapter also lists the contract's, stage 0, which run first), each as its name and its sentence, in the
grader's order. The section is written from `grader --list`, never by hand: a check added, renamed or
reworded in the grader (grader/checks/checks_*.cc) fails this test until `--write` has brought the chapter
along. Prints one line per chapter; exits 1 if one differs.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

HEADING = "## What the grader checks"
LIST_LINE = re.compile(r"^(stage(\d+)\.\S+)  (.*?)  \((.*)\)$")


def grader_checks(grader):
    """(stage, name, sentence) of every check, in the grader's order."""
    out = subprocess.run([grader, "--list"], capture_output=True, text=True, check=True, timeout=60).stdout
    checks = []
    for line in out.splitlines():
        m = LIST_LINE.match(line)
        if not m:
            raise SystemExit("check_stage_checks: cannot read this line of grader --list: %r" % line)
        checks.append((int(m.group(2)), m.group(1), m.group(3)))
    return checks


def markdown_text(sentence):
    """A sentence as Markdown text that shows it as written: backslashes and backticks escaped."""
    return sentence.replace("\\", "\\\\").replace("`", "\\`")


def section(stage, checks):
    lines = [HEADING, ""]
    if stage == 1:
        lines += ["`make grade STAGE=1` checks first that the server speaks the contract (stage 0: if one of these",
                  "fails, no other check runs), then stage 1's checks. From `grader --list`:", ""]
        lines += ["- `%s`: %s" % (name, markdown_text(s)) for st, name, s in checks if st == 0]
        lines += [""]
    else:
        before = "stage 1's" if stage == 2 else "those of stages 1 to %d" % (stage - 1)
        lines += ["`make grade STAGE=%d` runs the contract's checks and %s, then these (from `grader --list`):"
                  % (stage, before), ""]
    lines += ["- `%s`: %s" % (name, markdown_text(s)) for st, name, s in checks if st == stage]
    lines += ["", "A failed check shows what it sent, what came back, a hint and the section to read; its `repeat:`",
              "line runs it alone again (`--check NAME`, same `--seed`)."]
    return "\n".join(lines) + "\n"


def main(argv):
    if "--help" in argv or "-h" in argv or "--grader" not in argv:
        print(__doc__.strip())
        return 0 if "--grader" not in argv and ("--help" in argv or "-h" in argv) else 2
    grader = argv[argv.index("--grader") + 1]
    rest = [a for a in argv if a not in ("--grader", grader, "--write")]
    repo = Path(rest[0] if rest else Path(__file__).resolve().parents[2]).resolve()
    write = "--write" in argv
    checks = grader_checks(grader)
    rows = json.loads((repo / "stages/stage_servers.json").read_text(encoding="utf-8"))["servers"]
    chapters = {row["stage"]: row["chapter"] for row in rows if not row.get("must_fail")}
    failures = 0
    for stage in sorted(chapters):
        path = repo / chapters[stage]
        text = path.read_text(encoding="utf-8")
        want = section(stage, checks)
        at = text.rfind("\n" + HEADING + "\n")
        body = text[:at + 1] if at >= 0 else text.rstrip("\n") + "\n\n"
        if write:
            path.write_text(body + want, encoding="utf-8")
            print("wrote %s: %s" % (chapters[stage], HEADING[3:]))
        elif at < 0:
            failures += 1
            print("FAIL  %s: no section \"%s\" (run with --write)" % (chapters[stage], HEADING[3:]))
        elif text[at + 1:] != want:
            failures += 1
            print("FAIL  %s: \"%s\" is not the last section or differs from grader --list (run with --write)"
                  % (chapters[stage], HEADING[3:]))
        else:
            n = sum(1 for st, _, _ in checks if st == stage)
            print("ok    %s: %d checks of stage %d, as grader --list says" % (chapters[stage], n, stage))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
