#!/usr/bin/env bash
# lesson-diffs.sh: each stage's lesson.diff is the diff of the stage before it and this stage, so a learner
# reads the lesson, and nothing else, in one file. docs/learn/lesson-diffs.md "Lesson diffs".
#   scripts/lesson-diffs.sh write   regenerate every stages/**/lesson.diff (make lesson-diffs)
#   scripts/lesson-diffs.sh check   exit 1 if any committed lesson.diff is out of date (run by make test)
set -euo pipefail
mode=${1:-check}
cd "$(dirname "$0")/../stages"

# Every server built on another (stages/stage_servers.json): "FOLDER BASE KIND", KIND stage or wrong-turn.
servers=$(python3 ../scripts/stage_servers.py lesson-diffs)
mapfile -t pairs <<<"$servers"

lesson_diff() {   # stage base kind: the diff without timestamps, so it changes only when the code does
  # A stage shows its new files whole (-N); a wrong turn says "Only in" for a file it reuses unchanged.
  local new_files=-N
  [[ "$3" == wrong-turn ]] && new_files=
  diff -ru $new_files -x lesson.diff "$2" "$1" | sed -E 's/^(---|\+\+\+) ([^[:space:]]+)[[:space:]].*$/\1 \2/' || true
}

stale=0
for pair in "${pairs[@]}"; do
  read -r stage base kind <<<"$pair"
  if [[ "$mode" == write ]]; then
    lesson_diff "$stage" "$base" "$kind" >"$stage/lesson.diff"
    echo "wrote stages/$stage/lesson.diff ($(grep -c '^[-+][^-+]' "$stage/lesson.diff") changed lines)"
  elif ! cmp -s <(lesson_diff "$stage" "$base" "$kind") "$stage/lesson.diff"; then
    echo "stale: stages/$stage/lesson.diff (run: make lesson-diffs)" >&2
    stale=1
  fi
done
[[ "$mode" == write || $stale -eq 0 ]] && { [[ "$mode" == check ]] && echo "lesson diffs: all ${#pairs[@]} current"; exit 0; }
exit 1
