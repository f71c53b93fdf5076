#!/usr/bin/env bash
# starter-check.sh: the learner's first minutes, played for real (make starter-check; CI runs it).
#   scripts/starter-check.sh [--language cpp|python]        (make starter-check [LANG=python])
# Writes a starter copy to a temporary folder, builds it from scratch, and checks that its tests pass, that
# `make grade STAGE=1` passes and that `make grade STAGE=2` fails with the grader's explanation.
# --language python: a Python starter copy (make starter LANG=python), whose `make grade` builds only the
# grader; its tests are the C++ copy's (the same tree), so they are not run again here.
set -uo pipefail
language=cpp
if [[ "${1:-}" == "--language" ]]; then language=${2:-}; fi
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "starter-check: FAILED: $*" >&2; exit 1; }

echo "starter-check: writing the $language starter to $work/lab"
"$src/scripts/make-starter.sh" --language "$language" "$work/lab" || fail "make starter"
cd "$work/lab" || exit 1
if [[ "$language" == cpp ]]; then
  echo "starter-check: make test in the copy (builds it from scratch)"
  make test > "$work/test.log" 2>&1 || { tail -n 40 "$work/test.log"; fail "make test in the starter"; }
  grep -E "tests passed" "$work/test.log" | tail -n 1
fi
echo "starter-check: make grade STAGE=1"
NO_COLOR=1 make grade STAGE=1 > "$work/grade1.log" 2>&1 || { tail -n 40 "$work/grade1.log"; fail "stage 1 does not pass"; }
grep -q "Next: stage 2" "$work/grade1.log" || fail "make grade STAGE=1 does not name the next stage"
echo "starter-check: make grade STAGE=2 (must fail, and say why)"
if NO_COLOR=1 make grade STAGE=2 > "$work/grade2.log" 2>&1; then fail "stage 2 passes in the starter"; fi
grep -q "hint:" "$work/grade2.log" || fail "the failing grade gives no hint"
grep -q 'docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint"' "$work/grade2.log" || fail "no pointer to stage 2's chapter"
if [[ "$language" == python ]]; then
  grep -q "learner_server" "$work/grade1.log" && fail "make grade built the C++ learner's server in a Python starter"
  grep -q "learner-python/" "$work/grade1.log" || fail "make grade STAGE=1 does not point at learner-python/"
fi
echo "starter-check: the $language starter builds, passes stage 1 and fails stage 2 with the grader's explanation"
