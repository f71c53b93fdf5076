#!/usr/bin/env bash
# sanitize.sh: every unit and end-to-end test under the sanitizers, with the figures (docs/reference/plumbing.md "Reliability",
# sanitizers). `make asan`, `make tsan` and `make sanitize` (both) run it.
#   scripts/sanitize.sh [--ci] asan|tsan [asan|tsan]     JOBS=N  (ctest's parallelism, default: the core count)
#
# --ci: CI's pass (`make ci-sanitize`, .ci/run): only the tests labelled sanitize-ci, built from only the targets
#       they need (tests/CMakeLists.txt says which and why: one of each C++ path, within CI's time).
#
# asan: build-asan, AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer at exit).
# tsan: build-tsan, ThreadSanitizer, with one suppression for Debian's uninstrumented libcpp-httplib.so
#       (tests/tsan.supp says why).
#
# The servers the tests start are sanitized too. halt_on_error makes a process die at its first report, so
# the test that drives it fails. Every report also goes to a file (log_path): a report in a server whose
# death a test tolerates (the crash checks restart servers) is still counted. A pass succeeds only when all
# of its tests pass and no process of it wrote a report.
#
# SANITIZE_QUICK=1 leaves two groups out (CI's pass before --ci): the tests that grade stage 6's mutants (a
# mutant is stage 6 with one line changed; stage 6 itself runs every test here), and the browser tests
# (chromium drives the page; the playground's server runs sanitized in the playground API test). `make asan`
# without it runs everything.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${JOBS:-$(nproc)}

case "${1:-}" in -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
ci=0
if [ "${1:-}" = --ci ]; then ci=1; shift; fi
if [ $# -eq 0 ]; then
  sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi

# run_pass NAME: build, test, count the reports; prints one summary line into $summary.
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
failed_passes=0
run_pass() {
  local name=$1 build title cmake_args options
  case "$name" in
    asan)
      build=build-asan title="ASan+UBSan"
      cmake_args="-DCMAKE_BUILD_TYPE=Debug -DLAB_SANITIZE=address"
      options=(ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$root/build-asan/sanitizer-reports/asan"
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$root/build-asan/sanitizer-reports/ubsan")
      ;;
    tsan)
      build=build-tsan title="TSan"
      cmake_args="-DCMAKE_BUILD_TYPE=Debug -DLAB_SANITIZE=thread"
      # print_suppressions: a process that matched the suppression says so at exit (counted below).
      options=(TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp:print_suppressions=1:log_path=$root/build-tsan/sanitizer-reports/tsan")
      ;;
    *) echo "sanitize.sh: unknown pass '$name' (asan or tsan)" >&2; exit 2 ;;
  esac

  local mutant_tests=ON ctest_select=() targets=(all) fast_build=OFF
  if [ "${SANITIZE_QUICK:-0}" = 1 ]; then
    mutant_tests=OFF ctest_select=(-E '^browser: ')
  fi
  if [ "$ci" = 1 ]; then
    mutant_tests=OFF ctest_select=(-L sanitize-ci) targets=("the sanitizer pass's tests" lab_ci_sanitize_set)
    fast_build=ON   # -O0: half the cold build (CMakeLists.txt, LAB_SANITIZE_FAST_BUILD)
  fi
  cmake_args="$cmake_args -DLAB_MUTANT_TESTS=$mutant_tests -DLAB_SANITIZE_FAST_BUILD=$fast_build"
  # An existing build folder keeps its cache: set the options there too.
  [ -f "$build/CMakeCache.txt" ] &&
    cmake -S . -B "$build" -DLAB_MUTANT_TESTS=$mutant_tests -DLAB_SANITIZE_FAST_BUILD=$fast_build > /dev/null
  echo "== $title: build $build, then its tests (ctest -j$jobs${ctest_select[*]:+ ${ctest_select[*]}}, mutant tests $mutant_tests)"
  local start=$SECONDS
  if ! BUILD="$build" JOBS="$jobs" CMAKE_ARGS="$cmake_args" scripts/build.sh "${targets[@]}"; then
    printf '%-11s %7s %7s %7s %8s %12s %6ss   build failed\n' "$title" - - - - - $(( SECONDS - start )) >> "$summary"
    failed_passes=$(( failed_passes + 1 ))
    return
  fi
  local reports_dir="$build/sanitizer-reports"
  rm -rf "$reports_dir" && mkdir -p "$reports_dir"
  local ctest_log="$build/sanitize-ctest.log"
  (cd "$build" && env "${options[@]}" ctest --output-on-failure -j"$jobs" "${ctest_select[@]}") 2>&1 | tee "$ctest_log"

  # ctest's last words: "100% tests passed, 0 tests failed out of 374"
  local line total failed passed
  line=$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$ctest_log" | tail -1)
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<< "$line")
  failed=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<< "$line")
  [ -n "$line" ] || { total=0; failed=0; }
  passed=$(( total - failed ))

  # A report file holds a report, or (TSan, print_suppressions) only the count of matched suppressions.
  local report_files=() f suppressed=0 n
  for f in "$reports_dir"/*; do
    [ -e "$f" ] || continue
    if grep -qE 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' "$f"; then
      report_files+=("$f")
    fi
    n=$(grep -oE 'Matched [0-9]+ suppressions' "$f" | awk '{ s += $2 } END { print s + 0 }')
    suppressed=$(( suppressed + n ))
  done
  local verdict="ok"
  if [ -z "$line" ] || [ "$failed" -ne 0 ] || [ "${#report_files[@]}" -ne 0 ]; then
    verdict="FAILED"
    failed_passes=$(( failed_passes + 1 ))
  fi
  local shown=0
  for f in "${report_files[@]}"; do
    [ "$shown" -lt 3 ] || break
    echo "-- sanitizer report $f (first 40 lines):"
    head -40 "$f"
    shown=$(( shown + 1 ))
  done
  local suppressed_text=-
  [ "$name" = tsan ] && suppressed_text=$suppressed
  printf '%-11s %7s %7s %7s %8s %12s %6ss   %s\n' "$title" "$total" "$passed" "$failed" "${#report_files[@]}" \
    "$suppressed_text" $(( SECONDS - start )) "$verdict" >> "$summary"
}

for pass in "$@"; do run_pass "$pass"; done

echo
echo "sanitize: the unit and end-to-end tests under the sanitizers ($(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
printf '%-11s %7s %7s %7s %8s %12s %7s\n' pass tests passed failed reports "suppressed*" time
cat "$summary"
echo "* reports TSan matched against tests/tsan.supp (libcpp-httplib.so only), counted in processes that exited"
echo "  normally; reports are written to build-*/sanitizer-reports/."
[ "$failed_passes" -eq 0 ]
