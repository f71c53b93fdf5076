"""processes.py: a server started for one measurement, and what /proc says about memory.

    server = Server([binary, "--port", "0", ...], db, log_path)   # waits for its "listening on" line
    server.sample_rss()                                            # VmRSS every RSS_SAMPLE_EVERY_S
    peak_kib = server.stop()                                       # SIGTERM; VmHWM read just before

Linux only: VmRSS is the resident set, VmHWM its peak over the process's life ("high water mark").
"""
import os
import re
import signal
import subprocess
import threading

START_TIMEOUT_S = 10       # a server that has not printed its listening line by then failed
RSS_SAMPLE_EVERY_S = 0.2   # often enough to see a run's peak, rarely enough to cost nothing


def status_kib(pid, field):
    """VmRSS or VmHWM (the peak of VmRSS) of a process, in KiB; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def process_name(pid):
    """/proc/PID/comm: the executable's name, cut to 15 characters."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def descendants(pid):
    """Every process below pid (Linux: /proc/PID/task/TID/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
                found += kids
                todo += kids
        except OSError:
            pass
    return found


class Server:
    """A server started on a fresh database, stopped with SIGTERM. Samples its VmRSS while it runs."""

    def __init__(self, command, db, log_path):
        self.db = db
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.port = self._read_port()
        self.peak_rss_kib = 0
        self._sampling = threading.Event()
        self._sampler = None

    def _read_port(self):
        timer = threading.Timer(START_TIMEOUT_S, self.proc.kill)
        timer.start()
        line = self.proc.stdout.readline()
        timer.cancel()
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"{self.proc.args[0]} did not start (first line: {line.strip()!r}; see {self.log.name})")
        return int(m.group(1))

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def sample_rss(self):
        def loop():
            while not self._sampling.wait(RSS_SAMPLE_EVERY_S):
                self.peak_rss_kib = max(self.peak_rss_kib, status_kib(self.proc.pid, "VmRSS"))
        self._sampler = threading.Thread(target=loop, daemon=True)
        self._sampler.start()

    def stop(self):
        """Stops the server; returns its VmHWM (peak resident memory, KiB), read just before."""
        self._sampling.set()
        hwm = status_kib(self.proc.pid, "VmHWM")
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        return hwm
