#!/usr/bin/env python3
"""check_mutant_table.py: the table of mutants in the text is written from the mutant files, never by hand.

    python3 tests/docs/check_mutant_table.py [REPO]           check
    python3 tests/docs/check_mutant_table.py [REPO] --write   rewrite the table

docs/teach/grader-checks-itself.md "Mutants: the grader against realistic mistakes" shows one row per file of
grader/mutants/: its name, its `mistake:` line and its `anomaly:` line, in the order of the names. Those lines
are the one source (`grader mutants` reads them); the table is their copy for the reader, so a mutant added,
renamed or re-described fails this test until `--write` has brought the table along. Exits 1 if it differs.
"""
import sys
from pathlib import Path

DOC = "docs/teach/grader-checks-itself.md"
HEADER = "| mutant | the mistake | should be named |"


def field(text, name):
    for line in text.splitlines():
        if line.startswith(name + ": "):
            return line[len(name) + 2:].strip()
    raise SystemExit("check_mutant_table: a mutant file has no %s: line" % name)


def table(repo):
    rows = [HEADER, "|---|---|---|"]
    for path in sorted((repo / "grader/mutants").glob("*.mutant")):
        text = path.read_text(encoding="utf-8")
        mistake = field(text, "mistake").replace("|", "\\|")
        rows.append("| `%s` | %s | `%s` |" % (path.stem, mistake, field(text, "anomaly")))
    return rows


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__.strip())
        return 0
    rest = [a for a in argv if a != "--write"]
    repo = Path(rest[0] if rest else Path(__file__).resolve().parents[2]).resolve()
    lines = (repo / DOC).read_text(encoding="utf-8").split("\n")
    if HEADER not in lines:
        print("FAIL  %s: no table that starts \"%s\"" % (DOC, HEADER))
        return 1
    start = lines.index(HEADER)
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    want = table(repo)
    if "--write" in argv:
        (repo / DOC).write_text("\n".join(lines[:start] + want + lines[end:]), encoding="utf-8")
        print("wrote %s: the mutant table, %d mutants" % (DOC, len(want) - 2))
        return 0
    if lines[start:end] != want:
        print("FAIL  %s: the mutant table differs from grader/mutants/*.mutant (run with --write)" % DOC)
        return 1
    print("ok    %s: the mutant table has the %d mutants' mistake and anomaly lines" % (DOC, len(want) - 2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
