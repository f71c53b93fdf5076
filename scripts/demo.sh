#!/usr/bin/env bash
# demo.sh: `make demo`. Starts stage 1 and walks one transfer and its retry through it, as a client
# behind a gateway with a 1-second timeout would: the first response is lost, the retry moves the money
# a second time. docs/learn/stage-1-naive.md "Stage 1: the naive server".
set -euo pipefail
BUILD=${BUILD:-build}
server_bin="$BUILD/stages/stage1_naive"
[[ -x "$server_bin" ]] || { echo "demo: $server_bin is missing; run make build" >&2; exit 1; }

if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then bold=$'\e[1m'; red=$'\e[31m'; dim=$'\e[2m'; off=$'\e[0m'
else bold=""; red=""; dim=""; off=""; fi

work=$(mktemp -d)
admin=demo-admin-token
"$server_bin" --port 0 --db "$work/stage1.db" --admin-token "$admin" --lab-controls --quiet \
  >"$work/out" 2>"$work/err" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true; wait $server_pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q '^listening on' "$work/out" 2>/dev/null && break; sleep 0.05; done
base=$(sed -n 's/^listening on //p' "$work/out")
[[ -n "$base" ]] || { echo "demo: the server did not start:" >&2; cat "$work/err" >&2; exit 1; }

say() { printf '\n%s%s%s\n' "$bold" "$*" "$off"; }
# Shows a request and its response the way curl -v does (> request, < response).
show() {
  local method=$1 path=$2 body=${3:-}; shift 3 || true
  printf '%s> %s %s%s\n' "$dim" "$method" "$path" "$off"
  for h in "$@"; do printf '%s> %s%s\n' "$dim" "$h" "$off"; done
  [[ -n "$body" ]] && printf '%s> %s%s\n' "$dim" "$body" "$off"
}
json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
admin_post() {
  curl -sS -X POST "$base$1" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' -d "$2"
}
balance() {
  curl -sS "$base/accounts/$1" -H "Authorization: Bearer $token" | json_field balance
}

say "Stage 1 (the naive server) is listening on $base"
client=$(admin_post /admin/clients '{"name":"alice"}')
token=$(json_field token <<<"$client")
client_id=$(json_field id <<<"$client")
from=$(admin_post /admin/accounts "{\"client_id\":$client_id,\"balance\":10000,\"currency\":\"USD\"}" | json_field id)
to=$(admin_post /admin/accounts "{\"client_id\":$client_id,\"balance\":0,\"currency\":\"USD\"}" | json_field id)
echo "alice owns account $from (100.00 USD) and account $to (0.00 USD); amounts are in cents."

body="{\"from_account\":$from,\"to_account\":$to,\"amount\":1500,\"currency\":\"USD\",\"memo\":\"rent\"}"
say "1. Alice sends 15.00 USD. The server is slow today (Lab-Delay-Ms: 1500); her gateway gives up after 1 s."
show POST /transfers "$body" "Idempotency-Key: \"rent-2026-11\"" "Lab-Delay-Ms: 1500"
if curl -sS --max-time 1 -X POST "$base/transfers" -H "Authorization: Bearer $token" \
     -H 'Content-Type: application/json' -H 'Idempotency-Key: "rent-2026-11"' -H 'Lab-Delay-Ms: 1500' \
     -d "$body" >/dev/null 2>"$work/curl_err"; then
  echo "< (a response arrived after all)"
else
  printf '%s< no response: %s%s\n' "$red" "$(tr -d '\n' <"$work/curl_err")" "$off"
fi
sleep 1   # the server finishes the first request meanwhile

say "2. She cannot know whether the money moved, so her app retries the same request, same key:"
show POST /transfers "$body" "Idempotency-Key: \"rent-2026-11\""
curl -sS -i -X POST "$base/transfers" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' -H 'Idempotency-Key: "rent-2026-11"' -d "$body" |
  tr -d '\r' | sed -n '1p;/^$/,$p' | sed '/^$/d; s/^/< /'; echo

say "3. The balances:"
from_balance=$(balance "$from")
to_balance=$(balance "$to")
echo "account $from: $from_balance   (expected 8500 after one transfer)"
echo "account $to: $to_balance   (expected 1500)"
entries=$(curl -sS "$base/admin/ledger" -H "Authorization: Bearer $admin" |
  python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
if [[ "$to_balance" -eq 3000 ]]; then
  printf '\n%sThe ledger holds %s transfers for one intent: stage 1 executed the retry again.%s\n' "$red" "$entries" "$off"
  echo "Stage 2 (a key table with a UNIQUE constraint) stops this. See docs/learn/stage-1-naive.md \"Stage 1: the naive server\"."
else
  echo "unexpected: the retry did not duplicate the transfer (balance $to_balance)" >&2
  exit 1
fi

# The article's final experiment: the whole day of requests, replayed against every stage and wrong turn.
say "4. Now a whole day: $(grep -c '"intent"' logs/day.jsonl) intents from logs/day.jsonl, every attempt their clients made"
echo "(timeouts, dropped connections, double clicks, retries, crashes, a teller's correction, colliding keys, a"
echo "retry the next morning), replayed against each stage and wrong turn. docs/teach/the-day.md \"The day\" explains each column."
"$BUILD/grader/grader" day replay logs/day.jsonl --stage all --bin-dir "$BUILD/stages"
printf '\n%sOne failure at a time, narrated for a class: %s/grader/grader demo%s\n' "$bold" "$BUILD" "$off"
