#!/usr/bin/env bash
# class-demo.sh: `make class-demo`: `grader class` on a made-up class of 30 (scripts/make_class.py demo: every
# reference stage and wrong turn, the mutants that are built, broken and hostile servers), graded at
# CLASS_STAGE (6), and the figures: the wall time and the machine's load before and after. docs/teach/grader-for-courses.md "Grading a
# class". The reports and the summary stay in $BUILD/class-demo/report/; CLASS_ARGS adds options (--jobs N,
# --fresh: a second run without it skips everyone graded before).
set -euo pipefail
build=${BUILD:-build}
stage=${CLASS_STAGE:-6}
work=$build/class-demo
python3 scripts/make_class.py demo "$build/stages" "$work/submissions"
echo "load before: $(uptime)"
started=$(date +%s%N)
# shellcheck disable=SC2086   # CLASS_ARGS is a list of options
"$build/grader/grader" class --submissions "$work/submissions" --stage "$stage" --out "$work/report" ${CLASS_ARGS:-}
ended=$(date +%s%N)
echo "load after:  $(uptime)"
tenths=$(( (ended - started) / 100000000 ))
echo "make class-demo: the class graded in $((tenths / 10)).$((tenths % 10)) s of wall time on $(nproc) cores;" \
     "the summary is $work/report/summary.html"
