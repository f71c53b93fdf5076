#!/usr/bin/env bash
# seed-matrix.sh: the grader matrix for several seeds in a row; it passes only if every seed holds the
# staircase. docs/teach/grader.md "The grader" (what it assumes about time). `make slow-matrix` and `make tsan-matrix`
# run it with every server slowed (LAB_SLOW_WRITE_MS) or sanitized; a verdict that changed with the speed
# of the server would break the staircase here.
#   BUILD=build SEEDS=20 FIRST_SEED=1 scripts/seed-matrix.sh
# Each seed's full output is kept in $BUILD/seed-matrix/seed-<S>.txt; a broken seed's lines are printed.
set -uo pipefail
build=${BUILD:-build}
seeds=${SEEDS:-20}
first=${FIRST_SEED:-$(( $(date +%s) % 1000000000 ))}
logs="$build/seed-matrix"
mkdir -p "$logs"

echo "seed-matrix: $seeds seeds from $first, binaries from $build/stages, LAB_SLOW_WRITE_MS=${LAB_SLOW_WRITE_MS:-0}"
held=0
for (( n = 0; n < seeds; n++ )); do
  seed=$(( first + n ))
  out="$logs/seed-$seed.txt"
  start=$(date +%s)
  if NO_COLOR=1 "$build/grader/grader" matrix --bin-dir "$build/stages" --seed "$seed" > "$out" 2>&1; then
    held=$(( held + 1 ))
    echo "  seed $seed: staircase holds ($(( $(date +%s) - start ))s)"
  else
    echo "  seed $seed: STAIRCASE BROKEN ($(( $(date +%s) - start ))s), full output in $out"
    grep -A12 "STAIRCASE BROKEN" "$out" | sed 's/^/    /'
  fi
done
echo "$held of $seeds seeds held"
[ "$held" -eq "$seeds" ]
