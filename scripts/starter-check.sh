#!/usr/bin/env bash
# starter-check.sh: the learner's first minutes, played for real (make starter-check; CI runs it).
# Writes a starter copy to a temporary folder, builds it from scratch, and checks that its tests pass, that
# `make grade STAGE=1` passes and that `make grade STAGE=2` fails with the grader's explanation.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "starter-check: FAILED: $*" >&2; exit 1; }

echo "starter-check: writing the starter to $work/lab"
"$src/scripts/make-starter.sh" "$work/lab" || fail "make starter"
cd "$work/lab" || exit 1
echo "starter-check: make test in the copy (builds it from scratch)"
make test > "$work/test.log" 2>&1 || { tail -n 40 "$work/test.log"; fail "make test in the starter"; }
grep -E "tests passed" "$work/test.log" | tail -n 1
echo "starter-check: make grade STAGE=1"
NO_COLOR=1 make grade STAGE=1 > "$work/grade1.log" 2>&1 || { tail -n 40 "$work/grade1.log"; fail "stage 1 does not pass"; }
grep -q "Next: stage 2" "$work/grade1.log" || fail "make grade STAGE=1 does not name the next stage"
echo "starter-check: make grade STAGE=2 (must fail, and say why)"
if NO_COLOR=1 make grade STAGE=2 > "$work/grade2.log" 2>&1; then fail "stage 2 passes in the starter"; fi
grep -q "hint:" "$work/grade2.log" || fail "the failing grade gives no hint"
grep -q 'docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint"' "$work/grade2.log" || fail "no pointer to stage 2's chapter"
echo "starter-check: the starter builds, passes stage 1 and fails stage 2 with the grader's explanation"
