#!/usr/bin/env bash
# canon_test.sh: drives the built `canon` binary as a learner would and checks its output format,
# exit statuses and messages. Usage: canon_test.sh PATH/TO/canon (tools/CMakeLists.txt passes it).
# Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
set -u

canon=${1:?usage: canon_test.sh PATH/TO/canon}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
check() {  # check DESCRIPTION EXPECTED ACTUAL
  if [[ "$2" == "$3" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL: %s\n  expected: %q\n  actual:   %q\n' "$1" "$2" "$3"
  fi
}

# run INPUT ARGS...: feeds INPUT on stdin; sets out, err, status.
run() {
  local input=$1
  shift
  printf '%s' "$input" | "$canon" "$@" >"$work/out" 2>"$work/err"
  status=$?
  out=$(cat "$work/out")
  err=$(cat "$work/err")
}

# Two bodies that differ in member order, whitespace, number spelling and escapes.
run '{"currency":"EUR","amount":1250}'
first=$out
check "canonical text then the hash, exit 0" \
  $'{"amount":1250,"currency":"EUR"}\nsha256: eeee78fb20f8fbb03fb016f376c0389d6be5286bbce3a472be2a2b376b3953d4' "$out"
check "exit status 0 for a good body" 0 "$status"
run $'{ "amount": 1250.0,\n  "currency": "\\u0045UR" }'
check "reordered, re-spaced, re-escaped body gives the same output" "$first" "$out"

# --raw prints only the canonical bytes, and their sha256sum is the printed fingerprint.
printf '{"b":[1.50,"caf\\u00e9","a\\/b"],"a":null}' | "$canon" --raw >"$work/raw"
check "--raw prints the canonical bytes without a newline" \
  "$(printf '{"a":null,"b":[1.5,"caf\xc3\xa9","a/b"]}' | od -An -tx1)" "$(od -An -tx1 <"$work/raw")"
raw_hash=$(sha256sum <"$work/raw" | cut -d' ' -f1)
run '{"b":[1.50,"caf\u00e9","a\/b"],"a":null}'
check "the printed fingerprint is the sha256 of the --raw bytes" "sha256: $raw_hash" "$(sed -n 2p <<<"$out")"

# FILE argument, and "-" for standard input.
printf '[3, 2, 1]' >"$work/body.json"
"$canon" --raw "$work/body.json" >"$work/out" 2>"$work/err"
check "reads FILE" "[3,2,1]" "$(cat "$work/out")"
run '{"x":1}' --raw -
check "reads standard input for -" '{"x":1}' "$out"

# Rejected input: exit 1, nothing on stdout, the reason on stderr.
run '{"amount":1,"amount":2}'
check "duplicate member: exit 1" 1 "$status"
check "duplicate member: message" 'canon: rejected: duplicate-member: duplicate member name "amount"' "$err"
check "duplicate member: nothing on stdout" "" "$out"
run $'{"note":"caf\xe9"}'
check "Latin-1 byte: exit 1" 1 "$status"
check "Latin-1 byte: message" 'canon: rejected: invalid-utf8: invalid UTF-8 byte 0xE9 at offset 12 (truncated sequence)' "$err"
run '[NaN]'
check "NaN: message" 'canon: rejected: syntax: NaN at offset 1 is not JSON: JSON numbers have no NaN or Infinity' "$err"
run '{"amount":1e400}'
check "1e400: message" 'canon: rejected: number-out-of-range: number 1e400 at offset 10 is too large for an IEEE-754 double' "$err"
run ''
check "empty input: exit 1" 1 "$status"

# Unreadable file: exit 1 with a clear message.
"$canon" "$work/missing.json" >"$work/out" 2>"$work/err"
check "missing file: exit 1" 1 "$?"
check "missing file: message" "canon: cannot open $work/missing.json: No such file or directory" "$(cat "$work/err")"

# Bad usage: exit 2.
run '{}' --bogus
check "unknown option: exit 2" 2 "$status"
check "unknown option: message" "canon: unknown option --bogus" "$(head -n1 <<<"$err")"
run '{}' "$work/body.json" "$work/body.json"
check "two files: exit 2" 2 "$status"

# --help: exit 0, and the example it shows is what canon really prints.
run '' --help
check "--help: exit 0" 0 "$status"
check "--help: starts with usage" "usage: canon [--raw] [FILE]" "$(head -n1 <<<"$out")"
help_hash=$(grep -m1 -oE 'sha256: [0-9a-f]{64}' <<<"$out")
run '{"currency":"EUR","amount":1250}'
check "--help: its example hash is the real one" "$help_hash" "$(sed -n 2p <<<"$out")"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
