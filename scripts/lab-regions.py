#!/usr/bin/env python3
"""lab-regions.py: the lesson regions of the learner's server. docs/learn/for-learners.md "For learners" (the starter).

The reference learner server (learner/) marks the code of each lesson with a region:

    // LAB BEGIN 3 <what the lesson adds, one line>
    <the lesson's code>
    // LAB ELSE
    <what the server does before the lesson: the behaviour of the stages before>
    // LAB END

The BEGIN part is the lesson; the ELSE part (optional) is what the server does without it, written so that
the server keeps the behaviour of the stages before. A marker is a line whose text, after its comment
leader (//, #, --), starts with LAB BEGIN <stage> <name>, LAB ELSE or LAB END; so it works on any text file.
Regions do not nest.

    lab-regions.py check FILE...                     exit 1, with line numbers, on a bad marker
    lab-regions.py keep --upto K SRC_DIR DEST_DIR    regions of stages <= K kept, the others replaced by
                                                     their ELSE part; no markers left; #line directives in
                                                     the C++ files name the source's own lines
    lab-regions.py starter SRC_DIR DEST_DIR          every region replaced by its ELSE part and a TODO
                                                     comment naming the stage and its chapter
    lab-regions.py lessons SRC_DIR                   prints every line of every BEGIN part (for tests)

A file without markers is copied unchanged.
"""
import os
import re
import sys

import stage_servers
from stage_servers import stages

# The chapter that teaches each stage's regions, and its heading (stages/stage_servers.json).
CHAPTERS = {row["stage"]: stage_servers.reference(row) for row in stages()}
MARKER = re.compile(r"^(\s*)(//|#|--)\s*LAB (BEGIN|ELSE|END)\b(.*)$")
BEGIN_ARGS = re.compile(r"^\s+([2-6])\s+(\S.*)$")


class MarkerError(Exception):
    pass


def parse(path, lines):
    """Splits a file into text lines and regions: ("text", (number, line)) or ("region", stage, name,
    indent, comment leader, begin_lines, else_lines), each line with its number in the file."""
    parts, region = [], None
    for number, line in enumerate(lines, 1):
        match = MARKER.match(line)
        if not match:
            if region is None:
                parts.append(("text", (number, line)))
            else:
                region["else" if region["in_else"] else "begin"].append((number, line))
            continue
        indent, leader, kind, rest = match.groups()
        where = f"{path}:{number}"
        if kind == "BEGIN":
            if region is not None:
                raise MarkerError(f"{where}: LAB BEGIN inside the region opened at line {region['line']}"
                                  " (regions do not nest)")
            args = BEGIN_ARGS.match(rest)
            if not args:
                raise MarkerError(f"{where}: expected 'LAB BEGIN <stage 2-6> <name>'")
            region = {"line": number, "stage": int(args.group(1)), "name": args.group(2).strip(),
                      "indent": indent, "leader": leader, "begin": [], "else": [], "in_else": False}
        elif kind == "ELSE":
            if region is None:
                raise MarkerError(f"{where}: LAB ELSE outside a region")
            if region["in_else"]:
                raise MarkerError(f"{where}: a second LAB ELSE in the region opened at line {region['line']}")
            region["in_else"] = True
        else:
            if region is None:
                raise MarkerError(f"{where}: LAB END without LAB BEGIN")
            parts.append(("region", region))
            region = None
    if region is not None:
        raise MarkerError(f"{path}:{region['line']}: LAB BEGIN without LAB END")
    return parts


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines(keepends=True)


def render(parts, upto, todo, line_directives_for=None):
    """The file's text with the regions of stages <= upto kept and the others replaced by their ELSE part.
    line_directives_for: the source's path, for a C++ file compiled from the copy: #line directives keep
    every line at its number in the source, so that a compiler error names the learner's own file and line,
    not the generated copy (whose edits are lost at the next build)."""
    numbered = []   # (line number in the source or None, text)
    for part in parts:
        if part[0] == "text":
            numbered.append(part[1])
            continue
        region = part[1]
        if region["stage"] <= upto:
            numbered.extend(region["begin"])
            continue
        if todo:
            numbered.append((None, f"{region['indent']}{region['leader']} TODO(stage {region['stage']}): "
                                   f"{region['name']}. {CHAPTERS[region['stage']]}.\n"))
        numbered.extend(region["else"])
    out, expected = [], None
    # A #line file name is a C string literal: a backslash or a quote in the path is escaped.
    quoted = (line_directives_for or "").replace("\\", "\\\\").replace('"', '\\"')
    for number, line in numbered:
        if line_directives_for is not None and number is not None and number != expected:
            out.append(f'#line {number} "{quoted}"\n')
        out.append(line)
        expected = None if number is None else number + 1
    return "".join(out)


def files_below(src):
    for root, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")   # Python's compiled files: not sources
        for name in sorted(names):
            path = os.path.join(root, name)
            yield path, os.path.relpath(path, src)


def write_tree(src, dest, upto, todo, line_directives=False):
    for path, rel in files_below(src):
        cpp = path.endswith((".cc", ".h"))
        text = render(parse(path, read(path)), upto, todo,
                      os.path.abspath(path) if line_directives and cpp else None)
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        old = open(target, encoding="utf-8").read() if os.path.exists(target) else None
        if old != text:   # unchanged outputs keep their time stamp: no needless rebuild
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    command = argv[1]
    try:
        if command == "check" and len(argv) >= 3:
            for path in argv[2:]:
                parse(path, read(path))
            return 0
        if command == "keep" and len(argv) == 6 and argv[2] == "--upto":
            write_tree(argv[4], argv[5], int(argv[3]), todo=False, line_directives=True)
            return 0
        if command == "starter" and len(argv) == 4:
            write_tree(argv[2], argv[3], 1, todo=True)
            return 0
        if command == "lessons" and len(argv) == 3:
            for path, _ in files_below(argv[2]):
                for part in parse(path, read(path)):
                    if part[0] == "region":
                        sys.stdout.writelines(line for _, line in part[1]["begin"])
            return 0
    except MarkerError as error:
        print(f"lab-regions: {error}", file=sys.stderr)
        return 1
    print(f"lab-regions: unknown command or arguments: {' '.join(argv[1:])} (see --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
