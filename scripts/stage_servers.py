#!/usr/bin/env python3
"""stage_servers.py: stages/stage_servers.json, the one list of stage servers and wrong turns, read for Python
and for the shell (the file describes its own fields).

    import stage_servers                      # from a script beside this one (bench.py, lab-regions.py)
    stage_servers.rows()                      # every row, in the table's order, as a dict of its fields
    stage_servers.stages()                    # the rows that are stages, not wrong turns

    stage_servers.reference(row)              # where the text teaches it: 'docs/learn/stage-2-unique-key.md
                                              # "Stage 2: a key table with a UNIQUE constraint"'

    scripts/stage_servers.py lesson-diffs     # for scripts/lesson-diffs.sh: a line per server built on
                                              # another, "FOLDER BASE stage" or "FOLDER BASE wrong-turn"
    scripts/stage_servers.py reference N      # for scripts/grade.sh: stage N's chapter, as reference() says

Python 3 standard library only.
"""
import json
import os
import sys

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "stages", "stage_servers.json")


def rows():
    with open(TABLE, encoding="utf-8") as f:
        return json.load(f)["servers"]


def is_wrong_turn(row):
    return row["must_fail"] is not None  # the table's rule: a row with must_fail is a wrong turn


def stages():
    return [row for row in rows() if not is_wrong_turn(row)]


def reference(row):
    """A stage's chapter and its first heading; a wrong turn's chapter and the chapter's heading."""
    heading = f"Stage {row['stage']}: {row['title']}" if not is_wrong_turn(row) else "Wrong turns"
    return f'{row["chapter"]} "{heading}"'


def main(argv):
    if len(argv) == 3 and argv[1] == "reference":
        found = [row for row in stages() if str(row["stage"]) == argv[2]]
        if found:
            print(reference(found[0]))
            return 0
    if argv[1:] == ["lesson-diffs"]:
        for row in rows():
            if row["base"] is not None:
                print(row["folder"], row["base"], "wrong-turn" if is_wrong_turn(row) else "stage")
        return 0
    print(f"usage: {argv[0]} lesson-diffs | reference STAGE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
