#!/usr/bin/env bash
# lesson-diffs.sh: each stage's lesson.diff is the diff of the stage before it and this stage, so a learner
# reads the lesson, and nothing else, in one file. LAB.md "Lesson diffs".
#   scripts/lesson-diffs.sh write   regenerate every stages/**/lesson.diff (make lesson-diffs)
#   scripts/lesson-diffs.sh check   exit 1 if any committed lesson.diff is out of date (run by make test)
set -euo pipefail
mode=${1:-check}
cd "$(dirname "$0")/../stages"

# stage  <-  the stage it is built on
pairs=(
  "2_unique_key 1_naive"
  "3_fingerprint 2_unique_key"
  "4_two_phase 3_fingerprint"
  "5_replay 4_two_phase"
  "6_scope_ttl 5_replay"
  "wrong_turns/2a_select_then_insert 2_unique_key"
  "wrong_turns/2b_insert_or_ignore 2_unique_key"
  "wrong_turns/3a_raw_fingerprint 3_fingerprint"
  "wrong_turns/4a_completed_first 4_two_phase"
  "wrong_turns/4b_money_first 4_two_phase"
)

lesson_diff() {   # the diff without timestamps, so it changes only when the code does
  # A stage shows its new files whole (-N); a wrong turn says "Only in" for a file it reuses unchanged.
  local new_files=-N
  [[ "$1" == wrong_turns/* ]] && new_files=
  diff -ru $new_files -x lesson.diff "$2" "$1" | sed -E 's/^(---|\+\+\+) ([^[:space:]]+)[[:space:]].*$/\1 \2/' || true
}

stale=0
for pair in "${pairs[@]}"; do
  read -r stage base <<<"$pair"
  if [[ "$mode" == write ]]; then
    lesson_diff "$stage" "$base" >"$stage/lesson.diff"
    echo "wrote stages/$stage/lesson.diff ($(grep -c '^[-+][^-+]' "$stage/lesson.diff") changed lines)"
  elif ! cmp -s <(lesson_diff "$stage" "$base") "$stage/lesson.diff"; then
    echo "stale: stages/$stage/lesson.diff (run: make lesson-diffs)" >&2
    stale=1
  fi
done
[[ "$mode" == write || $stale -eq 0 ]] && { [[ "$mode" == check ]] && echo "lesson diffs: all ${#pairs[@]} current"; exit 0; }
exit 1
