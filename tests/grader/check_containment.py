#!/usr/bin/env python3
"""check_containment.py: the grader against a hostile submission (docs/teach/grader-for-courses.md "Untrusted servers").

usage: check_containment.py GRADER STAGE6 CASE     (CASE: one of CASES below, or signal:NAME)

Each case grades a real stage 6 server wrapped in a hostile fixture (tests/grader/hostile_server.py, or
tests/grader/faulty_proxy.py for answers), and checks the three promises the grader makes whatever a server
does:
  1. a clear verdict: the grader's output matches the case's pattern (a pass, a named start error, or the
     over-limit finding with the limit it went over);
  2. bounded memory: the grader's own peak (VmHWM in /proc/<pid>/status, polled) is at most GRADER_PEAK_MIB,
     scaled in a sanitized build by what the sanitizer costs (tests/sanitizer_bounds.py);
  3. nothing left running: every process started below the grader carries an environment variable of this
     run (LAB_CONTAINMENT_MARKER, inherited through the grader, its keeper, the shell and the server), and
     within LEFTOVER_BOUND_S of the grader's end no live process carries it.
signal:NAME grades a server that starts children in sessions of their own, sends the signal to the grader
once they are all running, and checks that the grader ends and nothing of the run is left.
Standard library only.
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sanitizer_bounds import memory_bound_mib  # noqa: E402

GRADER_PEAK_MIB = 128    # the grader's own peak memory, whatever the server sends (issue 27)
# grow-memory: the limit the grader is given for the server's tree, scaled like the grader's own bound (the
# server in the tree is sanitized too: under TSan it could not start within 100 MiB, issue #57).
SERVER_MEMORY_MIB = memory_bound_mib(100)[0]
LEFTOVER_BOUND_S = 5     # after the grader's end: the keeper ends the tree at once; this is patience
SIGNAL_END_BOUND_S = 15  # the grader's stop: kStopGrace (3 s) per server at most, far below this
HERE = os.path.dirname(os.path.abspath(__file__))
HOSTILE = [sys.executable, os.path.join(HERE, "hostile_server.py")]
PROXY = [sys.executable, os.path.join(HERE, "faulty_proxy.py")]

# name: (the server's wrapper, the grader's other arguments, what its output must say)
PASSED = r"\b0 failed"
CASES = {
    # Children in other sessions, one a second copy of the server: the grade is the server's own, and the
    # keeper ends them all.
    "setsid-children": (HOSTILE + ["--mode", "setsid-children"], ["--stage", "2"], PASSED),
    # A daemon's first process exits 0 at once: a start error that says why, and its grandchild is ended.
    "daemonize": (HOSTILE + ["--mode", "daemonize"], ["--stage", "1"],
                  r"ended before it answered GET /healthz \(exit 0\): a server must stay in the foreground"),
    # 1 GiB to stderr: the file size limit stops the writer; the grader reads only the log's tail.
    "stderr-flood": (HOSTILE + ["--mode", "stderr-flood"], ["--stage", "2"], PASSED),
    # A helper that grows without end: ended at the memory limit, named over-limit, not a stuck key.
    "grow-memory": (HOSTILE + ["--mode", "grow-memory"], ["--stage", "2", "--server-memory-mib", str(SERVER_MEMORY_MIB)],
                    rf"over-limit: the grader ended the server: it held [0-9]+ MiB of memory; its limit is {SERVER_MEMORY_MIB} MiB"),
    # 300 sleeping children: over the process limit (256).
    "fork-many": (HOSTILE + ["--mode", "fork-many", "--children", "300"], ["--stage", "2"],
                  r"over-limit: the grader ended the server: it ran [0-9]+ processes; its limit is 256"),
    # The same children before the server starts (a slow start, as a sanitized server's): over the process
    # limit before GET /healthz, which the start error names, not "the server ended" (issue 57).
    "fork-many-first": (HOSTILE + ["--mode", "fork-many-first", "--children", "300"], ["--stage", "2"],
                        r"could not start the server\.(.|\n)*over-limit: the grader ended the server: it ran [0-9]+ "
                        r"processes; its limit is 256 \(before it answered GET /healthz\)"),
    # Every answer padded to just under the grader's cap on one answer, 16 at once in each burst.
    "padded-answers": (PROXY + ["--port", "{port}", "--fault", "padded-answers"],
                       ["--stage", "2", "--check", "stage2.simultaneous-16"], PASSED),
    # 140,000 tiny header fields in every answer: refused as an answer, never parsed into memory.
    "header-flood": (PROXY + ["--port", "{port}", "--fault", "header-flood"], ["--stage", "1"],
                     r"more than 100 header fields"),
}
SIGNALS = ["TERM", "INT", "HUP", "PIPE", "QUIT", "USR1", "KILL"]


def stage6_command(stage6, wrapped_by_proxy):
    common = ["--db", "{db}", "--admin-token", "{admin_token}", "--lab-controls", "--quiet"]
    # The proxy takes --port itself and gives the server one of its own; the hostile wrapper passes it on.
    return ["--", stage6] + ([] if wrapped_by_proxy else ["--port", "{port}"]) + common


def carries(pid, marker):
    """Alive (not a zombie) and started in this run."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return False
        with open(f"/proc/{pid}/environ", "rb") as f:
            return marker in f.read().split(b"\0")
    except (OSError, IndexError):
        return False


def marked(marker, but=()):
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in but and carries(p, marker)]


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:120]
    except OSError:
        return "(gone)"


def peak_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def start_grader(grader, server, extra, marker_value):
    env = dict(os.environ, NO_COLOR="1", LAB_CONTAINMENT_MARKER=marker_value)
    argv = [grader, "--seed", "1", *extra, "--server", " ".join(server)]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            errors="replace")


def no_leftovers(marker, grader_pid):
    deadline = time.monotonic() + LEFTOVER_BOUND_S
    while True:
        left = marked(marker, but=(grader_pid,))
        if not left:
            return []
        if time.monotonic() > deadline:
            return [f"{p} {command_line(p)}" for p in left]
        time.sleep(0.1)


def run_case(grader, stage6, name):
    wrapper, extra, expected = CASES[name]
    marker_value = uuid.uuid4().hex
    marker = f"LAB_CONTAINMENT_MARKER={marker_value}".encode()
    proc = start_grader(grader, wrapper + stage6_command(stage6, wrapper[:2] == PROXY), extra, marker_value)
    # Read the output on the side while polling the peak; the output is small (the grader bounds it).
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()))
    reader.start()
    peak = 0
    while proc.poll() is None:
        now = peak_kib(proc.pid)
        peak = max(peak, now or 0)
        time.sleep(0.05)
    reader.join()
    output = "".join(chunks)
    problems = []
    if not re.search(expected, output):
        problems.append(f"the verdict does not say /{expected}/; the grader said:\n{output[-3000:]}")
    bound_mib, bound_said = memory_bound_mib(GRADER_PEAK_MIB)
    if peak > bound_mib * 1024:
        problems.append(f"the grader's peak memory was {peak // 1024} MiB, above {bound_said}")
    left = no_leftovers(marker, proc.pid)
    if left:
        problems.append(f"{len(left)} processes of the run still ran {LEFTOVER_BOUND_S} s after the grader:\n  " +
                        "\n  ".join(left))
    tail = output.strip().splitlines()[-1] if output.strip() else "(no output)"
    print(f"{name}: grader exit {proc.returncode}, peak {peak} KiB, {tail}")
    return problems


def run_signal(grader, stage6, name):
    sig = getattr(signal, "SIG" + name)
    marker_value = uuid.uuid4().hex
    marker = f"LAB_CONTAINMENT_MARKER={marker_value}".encode()
    # Stage 6 runs long enough for the signal to land in the middle of a check.
    proc = start_grader(grader, HOSTILE + ["--mode", "setsid-children"] + stage6_command(stage6, False),
                        ["--stage", "6"], marker_value)
    deadline = time.monotonic() + 30
    # The server, its shell or wrapper, and the 6 helpers in their own sessions: wait until they run.
    while len(marked(marker, but=(proc.pid,))) < 8 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    before = marked(marker, but=(proc.pid,))
    if proc.poll() is not None:
        return [f"the grader ended before the signal: {proc.stdout.read()[-2000:]}"]
    time.sleep(0.5)
    os.kill(proc.pid, sig)
    try:
        proc.wait(timeout=SIGNAL_END_BOUND_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return [f"the grader did not end within {SIGNAL_END_BOUND_S} s of SIG{name}"]
    proc.stdout.close()
    problems = []
    left = no_leftovers(marker, proc.pid)
    if left:
        problems.append(f"after SIG{name}, {len(left)} of the run's {len(before)} processes still ran:\n  " +
                        "\n  ".join(left))
    print(f"signal {name}: {len(before)} processes of the run before it, grader exit {proc.returncode}, "
          f"{len(left)} left")
    return problems


def main():
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        print("cases:", ", ".join(CASES), "; signal:" + "|".join(SIGNALS))
        return 0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2
    grader, stage6, case = sys.argv[1:]
    if case.startswith("signal:") and case[7:] in SIGNALS:
        problems = run_signal(grader, stage6, case[7:])
    elif case in CASES:
        problems = run_case(grader, stage6, case)
    else:
        print(f"no case {case!r}; cases: {', '.join(CASES)}, signal:NAME ({', '.join(SIGNALS)})")
        return 2
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
