#!/usr/bin/env bash
# pg-cluster.sh: a throwaway PostgreSQL cluster, reachable only through a unix socket in its own directory,
# gone without a trace once stopped. For `make multi` (scripts/multi.py), `make bench` and the PostgreSQL
# tests (tests/postgres). docs/reference/beyond-one-process.md "Beyond one process".
#
#   scripts/pg-cluster.sh start DIR   DIR: a new or empty directory with a short path (the socket lives in it).
#                                     Prints DIR, the socket directory; connect with
#                                     postgresql:///NAME?host=DIR&user=lab  (role lab, no password)
#   scripts/pg-cluster.sh stop DIR    stops the server and removes DIR. Safe to run twice, and after a start
#                                     that failed half-way.
#
# DIR holds: data/ (the cluster), log (the server's log: noisy on purpose, every unique violation the stages
# provoke is an ERROR line there), .lab-pg-cluster (the mark that lets stop remove DIR).
#
# initdb refuses to run as root, so as root the cluster belongs to the OS user postgres (runuser); otherwise it
# runs as the current user. Needs Debian's postgresql package (scripts/ensure-deps.sh postgres).
set -euo pipefail

# A unix socket path (DIR/.s.PGSQL.5432) must fit in sockaddr_un's 108 bytes; 14 of them are the file name.
MAX_DIR_LENGTH=90
# The stage servers hold a pool of connections each, and make multi runs three of them beside the grader's
# and its own checks; PostgreSQL's default of 100 is too few.
MAX_CONNECTIONS=200
# Seconds pg_ctl waits for the server to start, or for a fast stop, before giving up.
PG_CTL_WAIT_S=30
MARK=.lab-pg-cluster

die() { echo "pg-cluster.sh: $*" >&2; exit 1; }
usage() { echo "usage: scripts/pg-cluster.sh start|stop DIR" >&2; exit 2; }

[[ $# -eq 2 ]] || usage
command=$1
[[ -n "$2" ]] || usage
dir=$(realpath -m -- "$2")
data="$dir/data"

# Runs a PostgreSQL program as the cluster's owner: postgres when we are root, else ourselves. From / so that
# postgres is not refused the caller's working directory.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then (cd / && runuser -u postgres -- "$@")
  else (cd / && "$@"); fi
}

# The newest installed server's programs (Debian keeps them out of PATH, one folder per major version).
pg_bin() {
  local newest
  newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [[ -n "$newest" && -x "$newest/initdb" ]] ||
    die "no PostgreSQL server found in /usr/lib/postgresql/*/bin (run: scripts/ensure-deps.sh postgres)"
  echo "$newest"
}

start() {
  local bin
  bin=$(pg_bin)
  (( ${#dir} <= MAX_DIR_LENGTH )) ||
    die "$dir is too long for a unix socket path (${#dir} > $MAX_DIR_LENGTH characters); use mktemp -d /tmp/labpg.XXXXXX"
  mkdir -p -- "$dir"
  [[ -z $(ls -A -- "$dir") ]] || die "$dir is not empty; start wants a new or empty directory"
  # The mark first: from here on, stop may remove DIR, whatever fails next.
  : >"$dir/$MARK"
  if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || die "no OS user postgres to run the cluster as (initdb refuses root)"
    chown postgres: "$dir"
  fi
  chmod 700 "$dir"

  # trust: anyone who can reach the socket is role lab; the socket is in DIR, which only its owner (and
  # root) can enter. -U lab makes lab the superuser, so the stages may CREATE DATABASE.
  as_owner "$bin/initdb" -D "$data" -U lab --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; die "initdb failed (output above); scripts/pg-cluster.sh stop $dir removes it"; }

  # No TCP at all: only the socket in DIR. Durability stays PostgreSQL's default (fsync on): the stages set
  # synchronous_commit themselves (--sync), and make bench's PostgreSQL rows must pay for the disk as the
  # SQLite rows do, or the comparison would be a lie.
  cat >>"$data/postgresql.conf" <<EOF

# scripts/pg-cluster.sh: a throwaway cluster
listen_addresses = ''
unix_socket_directories = '$dir'
max_connections = $MAX_CONNECTIONS
EOF

  if ! as_owner "$bin/pg_ctl" start -D "$data" -l "$dir/log" -w -t "$PG_CTL_WAIT_S" >/dev/null; then
    tail -n 20 "$dir/log" >&2 2>/dev/null || true
    die "the server did not start (its log's end above); scripts/pg-cluster.sh stop $dir cleans up"
  fi
  echo "$dir"
}

stop() {
  [[ -e "$dir" ]] || return 0   # already stopped and removed
  if [[ ! -e "$dir/$MARK" ]]; then
    # Not made by start: remove it only if it is an empty directory (a start that failed at once).
    rmdir -- "$dir" 2>/dev/null || die "$dir was not made by pg-cluster.sh start; not removing it"
    return 0
  fi
  if [[ -f "$data/postmaster.pid" ]]; then
    local bin
    bin=$(pg_bin)
    # immediate: every process ends at once, without the shutdown checkpoint a clean stop makes. That
    # checkpoint would fsync every page the run wrote (tens of seconds after the tests' many databases), for
    # a directory that is deleted next line but two.
    as_owner "$bin/pg_ctl" stop -D "$data" -m immediate -w -t "$PG_CTL_WAIT_S" >/dev/null 2>&1 || true
    # Still there (pg_ctl itself failed)? The postmaster's pid is the pid file's first line.
    local pid
    pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null || true)
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
  fi
  rm -rf -- "$dir"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
