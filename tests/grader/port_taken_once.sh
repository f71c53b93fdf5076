#!/usr/bin/env bash
# port_taken_once.sh: a server command whose first start finds its port taken by another process, as when
# several gradings run at once and one takes the free port another picked (grader/wire/server_process.cc,
# kPortRaceRetries). The other process must be outside the server's tree (the grader ends everything a server
# starts when the server ends, grader/wire/process_keeper.h), so the squatter is a process the test started
# before the grader: the first time (no marker beside the database) this script writes {port} to the
# squatter's FIFO (LAB_PORT_SQUATTER), waits until the port is taken, then starts the server, which cannot
# bind and exits; later starts run the server alone.
#   LAB_PORT_SQUATTER=FIFO port_taken_once.sh PORT DB SERVER [ARGS...]
set -u
port=$1 db=$2
shift 2
marker="$(dirname "$db")/port-taken-once"
if [ ! -e "$marker" ]; then
  touch "$marker"
  echo "$port" > "$LAB_PORT_SQUATTER"
  for _ in $(seq 50); do
    # bash's /dev/tcp: a connection succeeds once the squatter listens
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
fi
exec "$@"
