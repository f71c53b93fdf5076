#!/usr/bin/env python3
"""hostile_server.py: a test fixture, not a lesson. A real stage server started by a submission that behaves
as untrusted code may: it leaves processes behind, floods its output, or starves the machine. The grader must
end with a clear verdict, bounded memory, and nothing it started still running (grader/wire/process_keeper.h,
docs/teach/grader-for-courses.md "Untrusted servers"; tests/grader/check_containment.py runs each mode).

    grader --stage 2 --server "python3 tests/grader/hostile_server.py --mode setsid-children -- \\
      build/stages/stage6_scope_ttl --port {port} --db {db} --admin-token {admin_token} --lab-controls --quiet"

Modes (--mode):
  setsid-children   starts 6 helpers in their own sessions (setsid: another process group and session, so a
                    kill of the server's group misses them), one of them a second copy of the server on
                    another port and its own database, then runs the server in the foreground
  daemonize         forks twice, as a classic daemon does: the server runs in a grandchild in its own session,
                    and the first process exits 0 at once
  stderr-flood      writes to stderr without end (1 GiB unless a limit stops it) while the server runs
  grow-memory       a helper that allocates 16 MiB more every 100 ms, beside the server
  fork-many         a helper that keeps 200 sleeping children (--children N), beside the server
  fork-many-first   the same children, and the server started only SLOW_START_S later: a server slow to start
                    (as a sanitized one is) goes over the process limit before it answers GET /healthz
  read-outside      tries to read each --outside FILE and to write a file beside it; if any works, says so
                    on stderr and exits 3 before the server starts (a start error); else runs the server.
                    Under grader --sandbox each must fail (tests/grader/check_sandbox.py)

Every process it starts carries the environment variable LAB_HOSTILE_MARKER (given with --marker, inherited
by everything below), so a test can find whatever is left after the grader has gone. Standard library only.
"""
import argparse
import os
import subprocess
import sys
import time

FLOOD_BYTES = 1 << 30
FLOOD_CHUNK = b"x" * 65535 + b"\n"
GROW_STEP_BYTES = 16 << 20
FORKED_CHILDREN = 200
SLOW_START_S = 60


def detach(argv):
    """Starts argv in a new session, so it leaves the caller's process group."""
    return subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL)


def server_on_other_port(server):
    """The server's command with its --port replaced by 0 (the kernel picks one) and a database of its own: a
    second copy that serves. Not the same database: two servers on one file race for its locks at every
    restart ("database is locked" at start), and which check met that race first would depend on timing."""
    out = list(server)
    if "--port" in out:
        out[out.index("--port") + 1] = "0"
    if "--db" in out:
        out[out.index("--db") + 1] += "-second-copy"
    return out


def reach_outside(files):
    """What of each file it could do: read it, or write a new file beside it."""
    reached = []
    for path in files:
        try:
            with open(path, "rb") as f:
                reached.append(f"read {path} ({len(f.read())} bytes)")
        except OSError:
            pass
        beside = os.path.join(os.path.dirname(path), f"written-by-{os.getpid()}")
        try:
            with open(beside, "w") as f:
                f.write("a submission was here\n")
            reached.append(f"write {beside}")
        except OSError:
            pass
    return reached


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", required=True,
                        choices=["setsid-children", "daemonize", "stderr-flood", "grow-memory", "fork-many",
                                 "fork-many-first", "read-outside", "child-flood", "child-grow", "child-fork"])
    parser.add_argument("--marker", default="hostile")
    parser.add_argument("--children", type=int, default=FORKED_CHILDREN, help="fork-many: how many")
    parser.add_argument("--outside", action="append", default=[], help="read-outside: a file it must not reach")
    parser.add_argument("server", nargs=argparse.REMAINDER, help="-- and the server's command")
    args = parser.parse_args()
    server = args.server[1:] if args.server[:1] == ["--"] else args.server
    os.environ["LAB_HOSTILE_MARKER"] = args.marker
    me = [sys.executable, os.path.abspath(__file__), "--marker", args.marker, "--children", str(args.children),
          "--mode"]

    if args.mode == "child-flood":
        written = 0
        while written < FLOOD_BYTES:
            os.write(2, FLOOD_CHUNK)
            written += len(FLOOD_CHUNK)
        return
    if args.mode == "child-grow":
        hoard = []
        while True:
            hoard.append(bytearray(GROW_STEP_BYTES))  # bytearray(n) is zeroed, so its pages are touched
            time.sleep(0.1)
    if args.mode == "child-fork":
        children = [subprocess.Popen(["sleep", "1000"]) for _ in range(args.children)]
        for c in children:
            c.wait()
        return

    if args.mode == "setsid-children":
        for _ in range(5):
            detach(["sleep", "1000"])
        detach(server_on_other_port(server))
    elif args.mode == "daemonize":
        if os.fork() > 0:
            os._exit(0)
        os.setsid()
        if os.fork() > 0:
            os._exit(0)
    elif args.mode == "stderr-flood":
        subprocess.Popen(me + ["child-flood"])
    elif args.mode == "grow-memory":
        subprocess.Popen(me + ["child-grow"])
    elif args.mode == "fork-many":
        subprocess.Popen(me + ["child-fork"])
    elif args.mode == "fork-many-first":
        subprocess.Popen(me + ["child-fork"])
        time.sleep(SLOW_START_S)
    elif args.mode == "read-outside":
        reached = reach_outside(args.outside)
        if reached:
            print("hostile_server: read-outside: it could " + "; ".join(reached), file=sys.stderr)
            sys.exit(3)
    os.execvp(server[0], server)


if __name__ == "__main__":
    main()
