#!/usr/bin/env python3
"""A signal that ends the playground ends every process it started (docs/teach/the-playground.md "The playground").

usage: stop_test.py PLAYGROUND_BINARY BIN_DIR SIGNAL...   (SIGNAL: HUP, QUIT, KILL, ...; one run each)

Each run starts the playground on a free port, starts free mode on stage 1 (one stage server), finds every
process the playground started from /proc (its descendants, whatever their process group), sends SIGNAL to
the playground alone, and checks that within STOP_BOUND_S the playground and all of them are gone. A
signal the playground can catch must also stop it cleanly: exit status 0, its servers stopped by it.
SIGKILL cannot be caught: then the stage server must die with it (playground/session.cc says how).
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

STOP_BOUND_S = 5  # a stop takes the stage server's SIGTERM grace at most when it hangs; these do not


def children_of():
    """parent pid -> [child pids], from /proc/<pid>/stat (the ppid is the field after the ')')."""
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def descendants(pid):
    tree, found, todo = children_of(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def running(pid):
    """Alive and not a zombie (a zombie has ended; only its parent's wait is missing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def call(base, method, path, body=None):
    data = json.dumps(body if body is not None else {}).encode() if method == "POST" else None
    req = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read().decode() or "null")


def one_run(playground, bin_dir, signal_name):
    """The failures of one run, as sentences."""
    number = getattr(signal, "SIG" + signal_name)
    proc = subprocess.Popen([playground, "--port", "0", "--bin-dir", bin_dir], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    started = []
    try:
        base = None
        deadline = time.time() + 15
        while time.time() < deadline and base is None:
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", proc.stdout.readline())
            base = m.group(1) if m else None
        if base is None:
            return ["the playground did not print its 'listening on' line"]
        call(base, "POST", "/api/free", {"stand": "stage1_naive"})
        deadline = time.time() + 30
        while time.time() < deadline and call(base, "GET", "/api/state")["session"]["waiting"] != "ready":
            time.sleep(0.1)
        started = descendants(proc.pid)
        servers = [pid for pid in started if "stage1_naive" in command_line(pid)]
        if not servers:
            return [f"no stage1_naive among the playground's processes: {[command_line(p) for p in started]}"]
        print(f"  SIG{signal_name}: the playground is {proc.pid}; it started "
              + ", ".join(f"{pid} ({command_line(pid)[:60]})" for pid in started))

        os.kill(proc.pid, number)
        failures = []
        try:
            status = proc.wait(timeout=STOP_BOUND_S)
        except subprocess.TimeoutExpired:
            status = None
            failures.append(f"the playground still runs {STOP_BOUND_S} s after SIG{signal_name}")
        deadline = time.time() + STOP_BOUND_S
        while time.time() < deadline and any(running(pid) for pid in started):
            time.sleep(0.05)
        for pid in started:
            if running(pid):
                failures.append(f"{pid} ({command_line(pid)}) still runs {STOP_BOUND_S} s after the playground's SIG{signal_name}")
        if number != signal.SIGKILL and status is not None and status != 0:
            failures.append(f"SIG{signal_name} ended the playground with status {status}, not a clean stop (0)")
        return failures
    finally:
        for pid in [proc.pid] + started:  # what this run started and left behind: do not leak it into the next
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        proc.wait()


def main():
    playground, bin_dir, signal_names = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = []
    for name in signal_names:
        got = one_run(playground, bin_dir, name)
        print(("ok    " if not got else "FAIL  ") + f"SIG{name} to the playground ends everything it started")
        for line in got:
            print("      " + line)
        failures += got
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
