#!/usr/bin/env bash
# build.sh: configures the build folder once and builds only the targets a command needs (the Makefile's
# front door: `make demo` builds the stage servers and the grader, `make grade` the learner's server and the
# grader; `make build` and `make test` everything). docs/learn/getting-started.md "Getting started", first contact.
#
#   scripts/build.sh [--quiet] WHAT TARGET...     WHAT: a few words for the progress line ("the grader")
#   scripts/build.sh all                          every target, with the compiler's output (CI, make test)
#
# --quiet: one progress line instead of the compiler's output (learners meet the lab through it); the whole
# output goes to $BUILD/build.log, and when the build fails its errors are shown, naming the file to fix.
# The environment: BUILD (build), JOBS (nproc), CMAKE_ARGS, WERROR (ON), as the Makefile sets them.
#
# Ninja and ccache are used when installed (scripts/ensure-deps.sh installs both): Ninja starts a build of
# nothing to do in a fraction of a second, and ccache lets a second copy of the same sources (a starter copy
# in another folder, `make clean`) reuse the first one's objects. A folder configured before keeps its
# generator: CMake cannot change it.
set -uo pipefail
quiet=0
if [[ "${1:-}" == "--quiet" ]]; then quiet=1; shift; fi
[[ $# -ge 1 ]] || { echo "usage: scripts/build.sh [--quiet] WHAT TARGET... | all" >&2; exit 2; }
what=$1; shift
targets=("$@")
build=${BUILD:-build}
jobs=${JOBS:-$(nproc)}
werror=${WERROR:-ON}
read -r -a cmake_args <<<"${CMAKE_ARGS:--DCMAKE_BUILD_TYPE=RelWithDebInfo}"
mkdir -p "$build"
log="$build/build.log"

configure_args=(-S . -B "$build" "${cmake_args[@]}" "-DLAB_WERROR=$werror")
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  command -v ninja >/dev/null && configure_args+=(-G Ninja)
  # CCACHE_BASEDIR=/ makes every path in a compile command relative, and CCACHE_NOHASHDIR leaves the
  # folder out of the hash, so the same source compiled in another copy of the lab is a hit.
  # Only where ccache can keep its cache (a read-only home would fail every compile).
  if command -v ccache >/dev/null && cache_dir=$(ccache -k cache_dir 2>/dev/null) &&
     mkdir -p "$cache_dir" 2>/dev/null && [[ -w "$cache_dir" ]]; then
    configure_args+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=/;CCACHE_NOHASHDIR=1;ccache")
  fi
  need_configure=1
elif ! grep -qx "LAB_WERROR:BOOL=$werror" "$build/CMakeCache.txt"; then
  need_configure=1   # configured before LAB_WERROR existed, or with another value: once again
else
  need_configure=0
fi

build_args=(--build "$build" -j"$jobs")
[[ "$what" == "all" ]] || build_args+=(--target "${targets[@]}")

if [[ $quiet -eq 0 ]]; then
  if [[ $need_configure -eq 1 ]]; then cmake "${configure_args[@]}" || exit 1; fi
  exec cmake "${build_args[@]}"
fi

# Quiet: a progress line on a terminal (rewritten in place), a line per phase elsewhere (CI logs, pipes).
if [[ -t 2 ]]; then tty=1; else tty=0; fi
if [[ $tty -eq 1 && -z "${NO_COLOR:-}" ]]; then red=$'\e[31m'; off=$'\e[0m'; else red=""; off=""; fi
started=$SECONDS
: >"$log"
if [[ $need_configure -eq 1 ]]; then
  echo "configuring $build (log: $log)" >&2
  cmake "${configure_args[@]}" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; echo "configure failed (log: $log)" >&2; exit 1; }
fi
echo "building $what (log: $log)" >&2
# Ninja prints "[12/145] Building CXX object ...", make "[ 40%] Building ...": the step is the progress.
last_shown=-1
cmake "${build_args[@]}" 2>&1 | tee -a "$log" | while IFS= read -r line; do
  if [[ "$line" =~ ^\[\ *([0-9]+)/([0-9]+)\] ]]; then
    step="${BASH_REMATCH[1]} of ${BASH_REMATCH[2]} steps"; percent=$((100 * BASH_REMATCH[1] / BASH_REMATCH[2]))
  elif [[ "$line" =~ ^\[\ *([0-9]+)%\] ]]; then
    step="${BASH_REMATCH[1]}%"; percent=${BASH_REMATCH[1]}
  else
    continue
  fi
  if [[ $tty -eq 1 ]]; then
    printf '\r  %s, %d s ' "$step" $((SECONDS - started)) >&2
  elif (( percent / 25 > last_shown )); then   # a line at 0, 25, 50, 75 and 100%
    last_shown=$((percent / 25))
    echo "  $step, $((SECONDS - started)) s" >&2
  fi
done
status=${PIPESTATUS[0]}
[[ $tty -eq 1 ]] && printf '\r\e[K' >&2
if [[ $status -ne 0 ]]; then
  # The compiler's own words: each error with the lines around it (the file it names is the one to fix).
  echo "${red}the build failed${off}; the compiler said:" >&2
  if grep -qE '(error|Error)' "$log"; then
    # Without the progress lines and the compile commands: what is left is the compiler's message.
    grep -vE '^\[ *[0-9]+(/[0-9]+|%)\]|^(ccache|env|/usr/bin/c\+\+|/usr/bin/g\+\+|/usr/bin/clang)[ ]|^FAILED: |^ninja: ' "$log" |
      grep -E -B2 -A6 '(: error:|: fatal error:|undefined reference|Error [0-9]+)' | head -n 80 >&2
  else
    tail -n 40 "$log" >&2
  fi
  echo "(the whole output: $log)" >&2
  exit "$status"
fi
echo "built $what in $((SECONDS - started)) s" >&2
