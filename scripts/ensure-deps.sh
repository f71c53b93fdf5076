#!/usr/bin/env bash
# ensure-deps.sh: installs the Debian packages the lab builds and tests with, only those missing.
# Called by every Makefile target that builds. A second run finds everything and installs nothing.
# Without root (and without sudo) it prints the exact command to run and stops.
#
#   scripts/ensure-deps.sh            what `make demo` and `make build` need
#   scripts/ensure-deps.sh fuzz       and, for the target that needs them, one or more groups below
#                                     (`make test` asks for `browser` and `book`, `make multi` for `postgres`;
#                                     `grader --sandbox` names `bubblewrap`)
set -euo pipefail

# ninja-build and ccache: for build speed (scripts/build.sh says how it uses them).
packages=(
  g++ cmake make pkg-config ninja-build ccache
  libcpp-httplib-dev nlohmann-json3-dev libsqlite3-dev libpq-dev libssl-dev catch2
  python3 curl sqlite3 libxml2-utils
)

# Groups that only some make targets need: installed when that target asks for them.
for group in "$@"; do
  case "$group" in
    fuzz) packages+=(clang libclang-rt-14-dev) ;;   # libFuzzer and the sanitizers' runtime (make fuzz)
    bench) packages+=(wrk) ;;                        # the HTTP load generator of make bench (LuaJIT scripts)
    # The browser tests (tests/browser/, make test): headless chromium, and one font family so screenshots
    # show text on a machine that has no font yet.
    browser) packages+=(chromium fonts-dejavu-core) ;;
    # The PostgreSQL server of the throwaway clusters (scripts/pg-cluster.sh runs its initdb and pg_ctl;
    # Debian 12: postgresql-15): make multi's, and the PostgreSQL tests'. The client library is in the base
    # list: every stage links it.
    postgres) packages+=(postgresql) ;;
    # grader --sandbox (docs/teach/grader-for-courses.md "Untrusted servers"): bwrap. As a user other than root it also needs the
    # kernel's unprivileged user namespaces (Debian 12 allows them); the grader says so when it cannot run.
    bubblewrap) packages+=(bubblewrap) ;;
    # make book (docs/teach/the-playground.md "The book"): pandoc renders the chapters; make test's browser test
    # of the book needs it too.
    book) packages+=(pandoc) ;;
    *) echo "ensure-deps.sh: unknown group '$group' (known: fuzz bench browser postgres bubblewrap book)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

install_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  sudo_cmd=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  sudo_cmd=(sudo)
else
  echo "Missing Debian packages: ${missing[*]}" >&2
  echo "Install them as root, then run make again:" >&2
  echo "  sudo sh -c '$install_cmd'" >&2
  exit 1
fi

echo "Installing missing Debian packages: ${missing[*]}" >&2
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
