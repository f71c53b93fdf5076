#!/usr/bin/env bash
# package.sh: makes the Gradescope autograder zip: setup.sh, run_autograder, config.env, and the grader's
# source under lab/ (setup.sh compiles it on Gradescope's image). Usage: package.sh OUT.zip
set -euo pipefail
out="${1:?usage: package.sh OUT.zip}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
stage_dir="$(mktemp -d)"
trap 'rm -rf "$stage_dir"' EXIT

cp "$root"/scripts/gradescope/{setup.sh,run_autograder,config.env,README.md} "$stage_dir/"
# The grader's sources: main.cc and its rooms (grader/CMakeLists.txt), without the mutants' descriptions.
mkdir -p "$stage_dir/lab/grader"
(cd "$root/grader" && find . \( -name '*.cc' -o -name '*.h' \) -not -path './mutants/*' -exec cp --parents {} "$stage_dir/lab/grader/" \;)
# Their one generated file, the grader's list of stage servers: the build writes it from
# stages/stage_servers.json into the build tree; Gradescope has no CMake, so the same script writes it here.
cmake -DOUT="$stage_dir/lab/grader/base/stage_server_rows.inc" -P "$root/grader/base/stage_server_rows.cmake"
cp "$root/LAB.md" "$stage_dir/lab/"
cp -r "$root/docs" "$stage_dir/lab/"   # the chapters the reports name
mkdir -p "$(dirname "$out")"
rm -f "$out"
# Python's zipfile keeps the executable bits that Gradescope needs on setup.sh and run_autograder.
python3 - "$stage_dir" "$out" <<'PY'
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            path = os.path.join(folder, name)
            info = zipfile.ZipInfo.from_file(path, os.path.relpath(path, src))
            with open(path, "rb") as f:
                z.writestr(info, f.read(), zipfile.ZIP_DEFLATED)
PY
echo "package.sh: wrote $out"
