#!/usr/bin/env bash
# make-starter.sh: the learner's copy of the lab. docs/learn/for-learners.md "For learners".
#   scripts/make-starter.sh [--language cpp|python] DEST    (make starter DEST=../my-lab [LANG=python])
# DEST gets the lab without its answers: common/, the grader, the build, the text (LAB.md, docs/), stage 1, and the learner's
# server (learner/) with every lesson region replaced by its starting point and a TODO naming its chapter
# and heading (scripts/lab-regions.py starter), with the stage 6 files it uses as they are. Left out: the
# reference stages 2-6, their lesson diffs, the wrong turns, the grader's mutants of stage 6, the end-to-end
# tests of stages 2-6 (and signals_test.cc and hardening_test.cc, which run stages 5 and 6), and this
# project's CI.
# The Python learner's server (learner-python/) is written the same way, beside it. With --language python the
# copy is a Python starter: DEST/.learner-language says "python", so `make grade` there builds only the grader
# and grades learner-python/server.py (Makefile, scripts/grade.sh). docs/learn/for-learners.md "The Python starter".
# Afterwards it checks that no line of any lesson region is left anywhere in DEST's code.
set -euo pipefail
language=cpp
if [[ "${1:-}" == "--language" ]]; then language=${2:-}; shift 2 || true; fi
case "$language" in cpp|python) ;; *) echo "make-starter: --language is cpp or python (got '$language')" >&2; exit 2;; esac
dest=${1:?usage: make-starter.sh [--language cpp|python] DEST}
src=$(cd "$(dirname "$0")/.." && pwd)
if [[ -e "$dest" && -n "$(ls -A "$dest" 2>/dev/null)" ]]; then
  echo "make-starter: $dest exists and is not empty; choose a new folder" >&2
  exit 2
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
case "$dest/" in "$src"/*) echo "make-starter: $dest is inside the lab's own tree; choose a folder outside it" >&2; exit 2;; esac

python3 "$src/scripts/lab-regions.py" check "$src"/learner/* "$src"/learner-python/*.py   # a bad marker stops here

# Every file the lab tracks (and new ones not ignored), minus the answers.
cd "$src"
git ls-files --cached --others --exclude-standard -z |
  grep -zv -E '^(stages/[2-6]_[^/]*/|stages/wrong_turns/|grader/mutants/|learner/|learner-python/|\.ci/)' |
  grep -zv -E '^tests/e2e/(stage[2-6]|wrong_turns|signals|hardening)_test\.cc$' |
  while IFS= read -r -d '' file; do
    [[ -e "$file" ]] || continue   # deleted in the work tree
    mkdir -p "$dest/$(dirname "$file")"
    cp -p "$file" "$dest/$file"
  done
python3 scripts/lab-regions.py starter learner "$dest/learner"
python3 scripts/lab-regions.py starter learner-python "$dest/learner-python"
[[ "$language" == python ]] && echo python > "$dest/.learner-language"
# Stage 6's files that the learner's server uses as they are (learner/from_stage6.txt): the lab's tree
# compiles them from stages/6_scope_ttl/, which the starter leaves out, so they join the server in learner/.
grep -E '^[^#]' learner/from_stage6.txt | while IFS= read -r name; do
  cp -p "stages/6_scope_ttl/$name" "$dest/learner/$name"
done

# No answer left behind. A telling line is a line of a lesson region (24 characters or more, not a comment)
# that the learner is not given anyway: it is in neither the starter's learner/ nor common/ nor stage 1.
# None may appear anywhere in DEST's code. (The chapters explain the lessons in prose and SQL and stay whole.)
python3 - "$dest" <<'PY'
import os, subprocess, sys
dest = sys.argv[1]
def lines_below(folder):
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                yield path, number, line.strip()
given = {line for folder in ("learner", "common", "stages/1_naive", "learner-python", "examples/python")
         for _, _, line in lines_below(os.path.join(dest, folder))}
lessons = [line for folder in ("learner", "learner-python")
           for line in subprocess.run([sys.executable, "scripts/lab-regions.py", "lessons", folder], check=True,
                                      capture_output=True, text=True).stdout.splitlines()]
telling = {line.strip() for line in lessons
           if len(line.strip()) >= 24 and not line.strip().startswith(("//", "#")) and line.strip() not in given}
found = [f"{os.path.relpath(path, dest)}:{number}: {line}" for path, number, line in lines_below(dest)
         if line in telling and not path.endswith((".md", ".jsonl", ".yaml"))]
if found:
    print("make-starter: lesson code left in the starter:\n  " + "\n  ".join(found[:20]), file=sys.stderr)
    sys.exit(1)
print(f"make-starter: none of the {len(telling)} telling lines of the lessons is in the starter's code")
PY

server_folder=learner; [[ "$language" == python ]] && server_folder=learner-python
todos=$(grep -rc "TODO(stage" "$dest/$server_folder" | awk -F: '{n += $2} END {print n}')
echo "starter written to $dest: the learner's server is $dest/$server_folder ($todos TODOs, stages 2-6)"
read_next='docs/learn/for-learners.md "For learners"'
[[ "$language" == python ]] && read_next='docs/learn/for-learners.md "The Python starter"'
echo "next:  cd $dest && make grade STAGE=1    (then STAGE=2, and $read_next)"
