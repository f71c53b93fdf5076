#!/usr/bin/env bash
# grade.sh: the learner's loop. docs/learn/for-learners.md "For learners".
#   make grade STAGE=N                   build the learner's server (learner/) and grade stages 1..N
#                                        (in a Python starter copy: grade learner-python/server.py)
#   make grade STAGE=N SERVER="..."      grade a server in any language (the grader fills {port}, {db}, ...)
# On success it names the next stage and where to read; on failure the grader's report is the guide.
set -uo pipefail
stage=${1:-1}
build=${BUILD:-build}
if ! [[ "$stage" =~ ^[1-6]$ ]]; then
  echo "make grade: STAGE must be 1 to 6 (got '$stage')" >&2
  exit 2
fi
# The learner's own server: C++ (learner/), or Python in a copy made with `make starter LANG=python`
# (LEARNER_LANGUAGE=python, from its .learner-language: Makefile).
folder=learner
own_server="$build/learner/learner_server"
if [[ "${LEARNER_LANGUAGE:-cpp}" == python ]]; then
  folder=learner-python
  own_server="python3 learner-python/server.py"
fi
server=${SERVER:-"$own_server --port {port} --db {db} --admin-token {admin_token} --lab-controls --quiet"}
# shellcheck disable=SC2086   # GRADER_ARGS is a list of options, e.g. "--seed 7 --all-findings"
"$build/grader/grader" --stage "$stage" --server "$server" ${GRADER_ARGS:-}
status=$?
# Where each stage is taught, from the one list of stage servers (stages/stage_servers.json).
chapter() { python3 "$(dirname "$0")/stage_servers.py" reference "$1"; }
echo
if [[ $status -eq 0 && $stage -lt 6 ]]; then
  next=$((stage + 1))
  passed="Stages 1-$stage pass"; [[ $stage -eq 1 ]] && passed="Stage 1 passes"
  echo "$passed. Next: stage $next. Read $(chapter $next), write the TODO(stage $next)"
  echo "parts of $folder/ (or your own server), then: make grade STAGE=$next"
elif [[ $status -eq 0 ]]; then
  echo "All six stages pass: your server moves money exactly once, whatever the network does."
elif [[ $status -eq 1 ]]; then
  echo "Not yet: each FAIL above says what was sent, what came back, why it matters and where to look."
  echo "Repeat one check with the 'repeat:' line it prints; $(chapter "$stage") explains the lesson."
fi
exit $status
