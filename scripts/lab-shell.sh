# lab-shell.sh: terminal helpers for trying a lab server by hand with curl. docs/learn/getting-started.md "Getting started".
#
#   build/stages/stage2_unique_key --port 8080 --db /tmp/s2.db --admin-token secret --lab-controls &
#   source scripts/lab-shell.sh
#   TOKEN=$(new_client alice)
#   admin $URL/admin/accounts -d '{"client_id":1,"balance":10000,"currency":"USD"}'
#   post /transfers -H 'Idempotency-Key: "k1"' -d '{"from_account":1,"to_account":2,"amount":100,"currency":"USD"}'
#
# Sourced, not run: it defines variables and functions in your own shell, so $TOKEN and $URL stay yours to
# change between commands. Written for bash. Set URL or ADMIN_TOKEN before sourcing to point it elsewhere.
# shellcheck shell=bash

URL="${URL:-http://127.0.0.1:8080}"    # the server: the chapters start theirs with --port 8080
ADMIN_TOKEN="${ADMIN_TOKEN:-secret}"    # the server's --admin-token: the chapters use "secret"

# admin CURL-ARGS...: curl with the admin token and a JSON Content-Type (with -d, curl POSTs).
# Prints the body and a newline.
admin() { curl -s -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' "$@"; echo; }

# post PATH CURL-ARGS...: POSTs to $URL$PATH as the client whose token is in $TOKEN (TOKEN=$BOB post ...
# for another client). Prints "STATUS BODY"; status 000 means no response came (--max-time, a crash).
post() {
  local out
  out=$(mktemp)
  curl -s -o "$out" -w '%{http_code} ' "$URL$1" -H "Authorization: Bearer $TOKEN" \
       -H 'Content-Type: application/json' "${@:2}"
  cat "$out"
  rm -f "$out"
  echo
}

# new_client NAME: creates a client and prints its bearer token (the server shows a token only once).
new_client() {
  admin "$URL/admin/clients" -d "{\"name\":\"$1\"}" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p'
}
