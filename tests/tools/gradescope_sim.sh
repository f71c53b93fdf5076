#!/usr/bin/env bash
# gradescope_sim.sh: runs the Gradescope autograder (scripts/gradescope/run_autograder) as Gradescope would,
# on a submission that is examples/python/stage1_server.py, and checks that it gets full marks at stage 1.
# docs/teach/grader-for-courses.md "For courses: Gradescope" and docs/learn/for-learners.md "For learners".
#
#   tests/tools/gradescope_sim.sh build/grader/grader
#
# Gradescope's tree is /autograder; this lays out the same tree in a temporary folder and points
# run_autograder's AUTOGRADER_ROOT at it, so it needs no root and touches nothing outside that folder:
#   source/      run_autograder, config.env (the package's, with STAGE=1), grader (setup.sh would build it)
#   submission/  run_server: the Python server, as a learner would hand it in
#   results/     results.json and history.jsonl, written by the grader
set -u

grader=${1:?usage: gradescope_sim.sh PATH/TO/grader}
repo="$(cd "$(dirname "$0")/../.." && pwd)"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$root/source" "$root/submission"
cp "$repo/scripts/gradescope/run_autograder" "$root/source/"
ln -s "$(cd "$(dirname "$grader")" && pwd)/$(basename "$grader")" "$root/source/grader"
# The package's config.env with only the stage changed: its SERVER line is what a submission must accept.
sed 's/^STAGE=.*/STAGE=1/' "$repo/scripts/gradescope/config.env" > "$root/source/config.env"
[[ "$(grep '^SERVER=' "$root/source/config.env")" == "$(grep '^SERVER=' "$repo/scripts/gradescope/config.env")" ]] ||
  fail "config.env's SERVER line changed"
grep -q '^STAGE=1$' "$root/source/config.env" || fail "config.env has no STAGE= line to set"

# The submission: the example server as run_server, started through its #!/usr/bin/env python3 line.
cp "$repo/examples/python/stage1_server.py" "$root/submission/run_server"
chmod +x "$root/submission/run_server"
[[ "$(head -n 1 "$root/submission/run_server")" == "#!/usr/bin/env python3" ]] || fail "run_server has no python3 shebang"

AUTOGRADER_ROOT="$root" NO_COLOR=1 "$root/source/run_autograder" > "$root/autograder.log" 2>&1
status=$?
cat "$root/autograder.log"
[[ $status -eq 0 ]] || fail "run_autograder exited $status"
[[ -s "$root/results/history.jsonl" ]] || fail "no $root/results/history.jsonl"

python3 - "$root/results/results.json" <<'PY' || exit 1
import json, sys
results = json.load(open(sys.argv[1]))
tests = results["tests"]
failed = [t["name"] for t in tests if t["status"] != "passed"]
print("results.json: score %s of %s, %d tests" % (results["score"], results["max_score"], len(tests)))
if not tests or failed or results["score"] != results["max_score"]:
    sys.exit("FAIL: not full marks; failed: %s\n%s" % (failed, results.get("output", "")))
PY
echo "gradescope_sim: full marks at stage 1"
