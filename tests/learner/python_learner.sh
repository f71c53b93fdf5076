#!/usr/bin/env bash
# python_learner.sh: grades the Python learner's server (learner-python/) as it is after stage K.
# docs/learn/for-learners.md "The Python starter". Run by tests/learner/CMakeLists.txt:
#
#   python_learner.sh GRADER K passes      the lessons up to stage K: stages 1..K pass (exit 0)
#   python_learner.sh GRADER K fails-next  the lessons up to stage K: stage K + 1 fails (exit 0 when the
#                                          grader says "a check failed", exit 1, not a usage error or crash)
#
# The server is written fresh with `scripts/lab-regions.py keep --upto K` into a temporary folder, beside
# nothing: PYTHONPATH names examples/python/, where its plumbing (stage1_server.py) lives. --histories 1: the
# conformance checks run one random history each, as in tests/learner/CMakeLists.txt.
set -uo pipefail
grader=${1:?usage: python_learner.sh GRADER K passes|fails-next}
upto=${2:?}
mode=${3:?}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$src/scripts/lab-regions.py" keep --upto "$upto" "$src/learner-python" "$work/server" || exit 2
server="python3 $work/server/server.py --port {port} --db {db} --admin-token {admin_token} --lab-controls --quiet"
export NO_COLOR=1 PYTHONPATH="$src/examples/python" PYTHONDONTWRITEBYTECODE=1
case "$mode" in
  passes) exec "$grader" --stage "$upto" --seed 1 --histories 1 --server "$server" ;;
  fails-next)
    "$grader" --only $((upto + 1)) --seed 1 --histories 1 --server "$server"
    status=$?
    echo "python_learner: the grader exited $status (1 expected: a check of stage $((upto + 1)) failed)"
    [[ $status -eq 1 ]] ;;
  *) echo "python_learner: unknown mode '$mode'" >&2; exit 2 ;;
esac
