#!/usr/bin/env bash
# fuzz.sh: what `make fuzz SECONDS=N` runs. docs/reference/plumbing.md "Reliability" (Fuzzing).
#   scripts/fuzz.sh SECONDS FUZZ_BUILD BUILD
# SECONDS is shared equally by the four libFuzzer targets of fuzz/ (built with clang in FUZZ_BUILD) and the HTTP
# mutation fuzzer (BUILD/fuzz/http_mutator against BUILD's stage 6 server). Prints one line of figures per
# target. Each target grows its own corpus in FUZZ_BUILD/corpus/<target> (seeded from fuzz/corpus/<target>,
# which stays as committed) and saves what breaks it in FUZZ_BUILD/crashes/<target>/.
# Exit status: 0 clean, 1 a crash or an HTTP anomaly.
set -euo pipefail
total=${1:?usage: fuzz.sh SECONDS FUZZ_BUILD BUILD}
fuzz_build=${2:?}
build=${3:?}
targets=(canonical_json idempotency_key money_request admin_input)
share=$(( total / (${#targets[@]} + 1) ))
(( share >= 1 )) || share=1

bold="" red="" plain=""
if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then bold=$'\033[1m' red=$'\033[31m' plain=$'\033[0m'; fi

# The last value libFuzzer printed for a field: "stat::average_exec_per_sec: 20276", "cov: 1234 ft: ...".
stat() { grep -o "^stat::$1: *[0-9]*" "$2" | tail -1 | grep -o '[0-9]*$' || echo "?"; }
progress_field() { grep -o " $1: [0-9]*" "$2" | tail -1 | grep -o '[0-9]*$' || echo "?"; }

echo "make fuzz: ${share} s for each of ${#targets[@]} libFuzzer targets and the HTTP fuzzer (SECONDS=${total})"
printf '%s%-16s %8s %12s %9s %9s %9s %7s %8s%s\n' "$bold" target seconds executions exec/s coverage features corpus crashes "$plain"
failed=0
for t in "${targets[@]}"; do
  corpus="$fuzz_build/corpus/$t" crashes="$fuzz_build/crashes/$t" log="$fuzz_build/fuzz-$t.log"
  mkdir -p "$corpus" "$crashes"
  before=$(find "$crashes" -type f | wc -l)
  [[ -t 1 ]] && printf '%-16s fuzzing for %s s...\r' "$t" "$share"
  status=0
  "$fuzz_build/fuzz/fuzz_$t" "$corpus" "fuzz/corpus/$t" -max_total_time="$share" -print_final_stats=1 \
    -artifact_prefix="$crashes/" >"$log" 2>&1 || status=$?
  found=$(( $(find "$crashes" -type f | wc -l) - before ))
  (( status == 0 && found == 0 )) || { failed=1; (( found > 0 )) || found="exit $status"; }
  printf '%-16s %8s %12s %9s %9s %9s %7s %8s\n' "$t" "$share" "$(stat number_of_executed_units "$log")" \
    "$(stat average_exec_per_sec "$log")" "$(progress_field cov "$log")" "$(progress_field ft "$log")" \
    "$(find "$corpus" -type f | wc -l)" "$found"
  if [[ "$found" != 0 ]]; then
    echo "  ${red}$t broke${plain}: its log is $log; the input is in $crashes/"
    echo "  repeat: $fuzz_build/fuzz/fuzz_$t $crashes/<file>   then commit the input to fuzz/corpus/$t/ and add"
    echo "  a Catch2 test in tests/common/ (make test replays fuzz/corpus through each target)"
  fi
done

echo
status=0
"$build/fuzz/http_mutator" --seconds "$share" \
  --server "$build/stages/stage6_scope_ttl --port {port} --db {db} --admin-token {admin_token} --quiet" || status=$?
(( status == 0 )) || failed=1
exit $failed
