#!/usr/bin/env bash
# url_instances.sh GRADER STAGE6 ARGS...: starts one stage 6 server and runs GRADER ARGS..., where the word
# {urls} stands for its URL named three times (U,U,U) and {token} for its admin token, e.g.
#   url_instances.sh build/grader/grader build/stages/stage6_scope_ttl --url {urls} --admin-token {token} --only 6
# The grader takes the three as instances of one server and sends each request to the next. One process
# behind every URL keeps the test small; it shows that several URLs, and the turns between them, break no
# check. (Three real instances on one PostgreSQL database are the lead's test: scripts/pg-cluster.sh.)
set -euo pipefail
grader=$1
stage6=$2
shift 2
token=adm_url_instances_test
tmp=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# --port 0: the server picks a free port and says which on its first line ("listening on http://HOST:PORT").
: >"$tmp/stdout"  # before the server starts: the loop below reads it at once
"$stage6" --port 0 --db "$tmp/lab.db" --admin-token "$token" --lab-controls --quiet >"$tmp/stdout" 2>"$tmp/stderr" &
server=$!
url=
for _ in $(seq 100); do  # 100 x 0.1 s: a sanitizer build starts slowly
  url=$(sed -n 's/^listening on \(http:\/\/[0-9.]*:[0-9]*\)$/\1/p' "$tmp/stdout")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { echo "FAIL: the server ended:"; cat "$tmp/stderr"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "FAIL: no 'listening on' line from $stage6"; exit 1; }

args=("$@")
args=("${args[@]//\{urls\}/$url,$url,$url}")
args=("${args[@]//\{token\}/$token}")
echo "grader ${args[*]}"
NO_COLOR=1 "$grader" "${args[@]}"
