#!/usr/bin/env python3
"""check_file_references.py: every file a comment or a doc names exists.

    python3 tests/docs/check_file_references.py [REPO]

It reads the files git tracks that people read for their text: the source (.cc .h .py .sh .js .cmake,
CMakeLists.txt, Makefile) and the docs (.md). A reference is a path with a folder part whose name ends in an
extension the repository's own files have: `grader/record/history.cc`, `scripts/mutate.py`,
`tests/grader/junit.xsd`; in `grader/cli/mutants.cc:run_mutants` it is the file before the colon. It must
name a file or folder relative to the repository's root or to the folder of the file that names it: written
here, in tests/docs/, `../tools/werror_option.sh` is tests/tools/werror_option.sh. `${PROJECT_SOURCE_DIR}/`,
`$src/` and `$(CURDIR)/` stand for the root.

Not references, so not checked:
  - a path that starts at a `/`: an absolute path (/tmp/..., /proc/...), a URL (https://host/...), or one
    after a variable of a folder known only at run time ($root/results/..., the starter's $dest/learner/...,
    ${CMAKE_CURRENT_BINARY_DIR}/...);
  - a path with a glob or a placeholder in it (`*_test.cc`, `stages/<n>_<name>/`, `{view}`), or a name in
    capitals that no tracked file has (`BUILD/bench/latest.json`, `grader/mutants/NAME.mutant`);
  - the build tree: build/, build-asan/, ... (generated, never tracked);
  - a file a command in the text writes: the path after `--out` or `>`;
  - a system header (linux/magic.h), found under /usr/include.
These rules are the whole allowance list: no path is let off by name. Prints each reference that names
nothing, as FILE:LINE: PATH; exits 1 if there is one.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
SCANNED_SUFFIXES = (".cc", ".h", ".py", ".sh", ".js", ".cmake", ".md")
SCANNED_NAMES = ("CMakeLists.txt", "Makefile")
ROOT_PREFIX = re.compile(r'\$\{PROJECT_SOURCE_DIR\}/|"?\$\{?src\}?"?/|\$\(CURDIR\)/')
BUILD_TREE = re.compile(r"^(\.\./)*build([-_][\w-]+)?/")
WRITTEN_BY = re.compile(r"(--out[= ]|\s>\s?)$")   # the command writes it
SYSTEM_HEADERS = Path("/usr/include")


def tracked_files():
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"],
                         capture_output=True, text=True, check=True).stdout
    return [f for f in out.split("\0") if f]


def reference_pattern(files):
    """A path with a folder part and a known extension. It may not start right after a path character, a
    glob or a placeholder (so a tail of /tmp/x/y.cc or <n>_name/y.cc is no reference), and may not run on
    into one (y.cc.o, y.cc/, y.cc*)."""
    names = [os.path.basename(f) for f in files]
    extensions = sorted({name.rsplit(".", 1)[1] for name in names if "." in name.lstrip(".")})
    return re.compile(r"(?<![\w./<>*{}$%@~+-])((?:\.\.?/)*(?:[\w.+-]+/)+[\w.+-]*\.(?:"
                      + "|".join(map(re.escape, extensions)) + r"))(?!\.?[\w/*<{-])")


def capital_names(files):
    """The names in capitals the repository really has (README, LAB): every other one is a placeholder."""
    return {part.split(".")[0] for f in files for part in f.split("/") if part.split(".")[0].isupper()}


def not_a_reference(path, real_capitals):
    """The build tree, or a placeholder: a path it would be wrong to look for."""
    stems = (part.split(".")[0] for part in path.split("/"))
    return BUILD_TREE.match(path) or any(stem.isupper() and stem not in real_capitals for stem in stems)


def names_a_file(path, folder):
    if (REPO / path).exists() or (REPO / folder / path).exists():
        return True
    return path.endswith(".h") and (SYSTEM_HEADERS / path).exists()


def main():
    files = tracked_files()
    pattern, real_capitals = reference_pattern(files), capital_names(files)
    scanned = [f for f in files if f.endswith(SCANNED_SUFFIXES) or os.path.basename(f) in SCANNED_NAMES]
    dangling, checked = [], 0
    for name in scanned:
        if not (REPO / name).is_file():
            continue   # deleted in the work tree, not yet in git
        folder = os.path.dirname(name)
        text = (REPO / name).read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            line = ROOT_PREFIX.sub(" ", line)
            for match in pattern.finditer(line):
                path = match.group(1)
                if WRITTEN_BY.search(line[:match.start()]) or not_a_reference(path, real_capitals):
                    continue
                checked += 1
                if not names_a_file(path, folder):
                    dangling.append(f"{name}:{number}: {path}")
    for where in dangling:
        print(f"FAIL  {where} names no file")
    print(f"{checked - len(dangling)} of {checked} file references in {len(scanned)} files name a file")
    return 1 if dangling or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
