#!/usr/bin/env python3
"""port_squatter.py: a test fixture, not a lesson. Runs a command while another process, outside that
command's process tree, takes each port written to a FIFO for a few seconds: the "other grading that took
the free port first" of tests/grader/port_taken_once.sh. Sets LAB_PORT_SQUATTER to the FIFO's path.

    port_squatter.py -- grader --stage 1 --server "bash tests/grader/port_taken_once.sh {port} {db} ..."

Exits with the command's status. Standard library only.
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading

HOLD_SECONDS = 5


def squat(fifo):
    while True:
        with open(fifo) as f:  # blocks until a writer opens it; one port per line
            for line in f:
                if not line.strip():
                    continue
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", int(line)))
                s.listen(8)
                threading.Timer(HOLD_SECONDS, s.close).start()


def main():
    command = sys.argv[1:]
    if command[:1] == ["--"]:
        command = command[1:]
    if not command or command[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if command else 2
    with tempfile.TemporaryDirectory() as folder:
        fifo = os.path.join(folder, "ports")
        os.mkfifo(fifo)
        threading.Thread(target=squat, args=(fifo,), daemon=True).start()
        return subprocess.run(command, env=dict(os.environ, LAB_PORT_SQUATTER=fifo)).returncode


if __name__ == "__main__":
    sys.exit(main())
