#!/usr/bin/env python3
"""mutate.py: writes one mutant of a stage's source file. docs/teach/grader.md "The grader" (mutants).

    mutate.py grader/mutants/NAME.mutant stages/6_scope_ttl OUT_DIR

A mutant file is a small grammar, written here once (docs/teach/grader-checks-itself.md "Mutants: the grader against realistic mistakes"
lists the mutants and what each must be named):

    # comment lines, kept for people: the mistake, and why it matters
    mistake: one line, what a hurried engineer did
    anomaly: the anomaly the grader must name it with (grader/record/anomaly.cc)
    lacks: the traits of stage 6 it lacks (stages/stage_servers.json "traits"), comma-separated, or contract
           (grader mutants holds every finding about it to stage 6's traits minus these: grader/record/truth.h)
    file: key_table.cc
    find:
    <lines, exactly as in the stage's file>
    replace:
    <lines>
    end

Several find/replace/end blocks may follow one `file:`. Each `find` must occur exactly once in the file,
so a mutant that no longer matches the stage's code fails the build instead of silently testing nothing.
"""
import os
import sys


def parse(path):
    meta, blocks, mode, find, replace = {}, [], None, [], []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.rstrip("\n")
            if mode == "find":
                if text == "replace:":
                    mode = "replace"
                else:
                    find.append(text)
            elif mode == "replace":
                if text == "end":
                    blocks.append(("\n".join(find), "\n".join(replace)))
                    mode, find, replace = None, [], []
                else:
                    replace.append(text)
            elif text.startswith("#") or not text.strip():
                continue
            elif text == "find:":
                mode = "find"
            elif ":" in text:
                name, value = text.split(":", 1)
                meta[name.strip()] = value.strip()
            else:
                sys.exit(f"{path}:{number}: expected 'name: value', 'find:', 'replace:' or 'end'")
    if mode is not None:
        sys.exit(f"{path}: a find/replace block has no 'end'")
    for required in ("mistake", "anomaly", "file"):
        if required not in meta:
            sys.exit(f"{path}: '{required}:' is missing")
    if not blocks:
        sys.exit(f"{path}: no find/replace block")
    return meta, blocks


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    mutant, stage_dir, out_dir = sys.argv[1:]
    meta, blocks = parse(mutant)
    source = os.path.join(stage_dir, meta["file"])
    with open(source, encoding="utf-8") as f:
        code = f.read()
    for find, replace in blocks:
        count = code.count(find)
        if count != 1:
            sys.exit(f"{mutant}: its find block occurs {count} times in {source}, not once:\n{find}")
        code = code.replace(find, replace)
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, meta["file"])
    new = f"// MUTANT {os.path.basename(mutant)}: {meta['mistake']}\n" + code
    if not os.path.exists(target) or open(target, encoding="utf-8").read() != new:
        with open(target, "w", encoding="utf-8") as f:
            f.write(new)


if __name__ == "__main__":
    main()
