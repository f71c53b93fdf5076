#!/usr/bin/env bash
# werror_option.sh SOURCE_DIR: -Werror is in the compile commands only with -DLAB_WERROR=ON (what the Makefile
# passes), so a plain Release configure of the lab does not turn a compiler's false positive into a failed build.
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -S "$src" -B "$tmp/plain" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake -S "$src" -B "$tmp/werror" -DCMAKE_BUILD_TYPE=Release -DLAB_WERROR=ON >/dev/null
if grep -q -- '-Werror' "$tmp/plain/compile_commands.json"; then
  echo "FAIL: -Werror without LAB_WERROR=ON"; exit 1
fi
if ! grep -q -- '-Werror' "$tmp/werror/compile_commands.json"; then
  echo "FAIL: no -Werror with LAB_WERROR=ON"; exit 1
fi
echo "ok: -Werror only with LAB_WERROR=ON"
