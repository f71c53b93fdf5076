#!/usr/bin/env bash
# port_taken_once.sh: a server command whose first start finds its port taken by another process, as when
# several gradings run at once and one takes the free port another picked (grader/wire/server_process.cc,
# kPortRaceRetries). The first time (no marker beside the database) it leaves a process of its own session
# listening on {port} for a few seconds, then starts the server, which cannot bind and exits; later starts
# run the server alone.
#   port_taken_once.sh PORT DB SERVER [ARGS...]
set -u
port=$1 db=$2
shift 2
marker="$(dirname "$db")/port-taken-once"
if [ ! -e "$marker" ]; then
  touch "$marker"
  setsid python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
time.sleep(5)
' "$port" </dev/null >/dev/null 2>&1 &
  sleep 0.5
fi
exec "$@"
