#!/usr/bin/env python3
"""check_excerpts.py: the code the text (LAB.md and the chapters under docs/) quotes from a file is still in that file, word for word.

    python3 tests/docs/check_excerpts.py

An excerpt is a fenced code block whose first line is a comment naming a file of the repository:

    ```python
    # examples/python/stage1_server.py
    class Handler(BaseHTTPRequestHandler):
    ...
    class LabServer(ThreadingHTTPServer):
    ```

A line of only "..." leaves lines out. Every other run of lines must appear in the named file exactly, and in
the order shown. So a change to the file that a chapter shows fails this check until the chapter shows it too.
Prints one line per excerpt; exits 1 if any excerpt no longer matches.
"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXCERPT = re.compile(r"^```\w*\n# ([\w./-]+)\n(.*?)^```$", re.M | re.S)


def chapters():
    return [REPO / "LAB.md"] + sorted((REPO / "docs").rglob("*.md"))


def main():
    failures = 0
    excerpts = []
    for chapter in chapters():
        text = chapter.read_text(encoding="utf-8")
        where = chapter.relative_to(REPO)
        excerpts += [(where, text, m) for m in EXCERPT.finditer(text) if (REPO / m.group(1)).is_file()]
    for where, text, match in excerpts:
        path, body = match.group(1), match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        source = (REPO / path).read_text(encoding="utf-8")
        at = 0
        for part in re.split(r"^\.\.\.\n", body, flags=re.M):
            found = source.find(part, at)
            if found < 0:
                failures += 1
                first = part.splitlines()[0] if part.strip() else "(empty)"
                print(f"FAIL  {where}:{line}: not in {path} (in this order): {first!r}")
                break
            at = found + len(part)
        else:
            print(f"ok    {where}:{line}: {path}")
    print(f"{len(excerpts) - failures} of {len(excerpts)} excerpts match their files")
    return 1 if failures or not excerpts else 0


if __name__ == "__main__":
    sys.exit(main())
