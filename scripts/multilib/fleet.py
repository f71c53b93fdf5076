"""fleet.py: what `make multi` runs: a throwaway PostgreSQL cluster and several stage-6 instances on one
database, and the guarantee that all of it is gone when the run ends, however it ends.

    with Fleet(binary, log_dir, instances=3, lease_s=2) as fleet:   # cluster up, three servers healthy
        fleet.urls()                  # ["http://127.0.0.1:A", ...]
        fleet.kill(0)                 # SIGKILL: a crash mid-request
        fleet.restart(0)              # same port, same database
        fleet.pause(1); fleet.resume(1)   # SIGSTOP / SIGCONT: a process that is alive but not running
        fleet.sql("SELECT ...")       # a read-only query on the shared database, as rows of strings
    # here: every server stopped (a paused one resumed first), the cluster stopped, its directory removed

The cluster is scripts/pg-cluster.sh's; the servers are benchlib.processes.Server (the bench's), so both
scripts start a server and learn its port the same way.
"""
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from benchlib.processes import Server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PG_CLUSTER = os.path.join(ROOT, "scripts", "pg-cluster.sh")
DB_NAME = "lab_multi"                # created by the first instance that finds it missing (contract)
HEALTH_TIMEOUT_S = 10                # listening but not answering GET /healthz by then: it failed
STOP_TIMEOUT_S = 5                   # SIGTERM, then this long, then SIGKILL


def progress(line):
    print(line, file=sys.stderr, flush=True)


class Fleet:
    """Not thread-safe: used from the main thread only (start-up's threads each fill their own instance's slot).
    close() must run in the main thread too: it holds off SIGINT, SIGTERM and SIGHUP while it stops things."""

    def __init__(self, binary, log_dir, instances, lease_s):
        self.binary = binary
        self.log_dir = log_dir
        self.count = instances
        self.lease_s = lease_s
        self.admin_token = secrets.token_hex(16)
        self.socket_dir = None        # the cluster's directory, once pg-cluster.sh made it
        self.postmaster_pid = None
        self.servers = [None] * instances
        self.ports = [0] * instances  # 0 until first started; a restart reuses the port
        self.starts = [0] * instances
        self.paused = set()           # indexes of SIGSTOPped servers: resumed before they are stopped
        self.started_pids = []        # every pid we started, for the final "nothing left" check

    # --- up ------------------------------------------------------------------------------------------------

    def __enter__(self):
        try:
            # The token in a file only we can read, not on the command line, where any user could (/proc).
            self.token_file = os.path.join(self.log_dir, "admin-token")
            if os.path.exists(self.token_file):
                os.remove(self.token_file)   # O_CREAT's mode applies only to a new file
            with open(os.open(self.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
                f.write(self.admin_token)
            self._start_cluster()
            # All at once, as a deployment would: the stages create the database and the tables under a lock.
            with ThreadPoolExecutor(self.count) as pool:
                list(pool.map(self._start_server, range(self.count)))
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _start_cluster(self):
        # Its own short directory: a socket path must stay under 108 bytes, and as root the directory is
        # handed to the user postgres, who must not need to enter any folder of ours.
        self.socket_dir = tempfile.mkdtemp(prefix="labpg.", dir="/tmp")
        t0 = time.monotonic()
        out = subprocess.run([PG_CLUSTER, "start", self.socket_dir], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("the PostgreSQL cluster did not start:\n" + out.stderr.strip())
        self.postmaster_pid = self._postmaster_pid()
        progress(f"cluster: PostgreSQL on the socket in {self.socket_dir} ({time.monotonic() - t0:.1f} s)")

    def _postmaster_pid(self):
        try:
            with open(os.path.join(self.socket_dir, "data", "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def database_uri(self, read_only=False):
        uri = f"postgresql:///{DB_NAME}?host={self.socket_dir}&user=lab"
        # Every transaction read-only: the checks look at the books, they never fix them.
        return uri + "&options=-c%20default_transaction_read_only%3Don" if read_only else uri

    @staticmethod
    def name(i):
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i]

    def _start_server(self, i):
        self.starts[i] += 1
        command = [self.binary, "--port", str(self.ports[i]), "--db", self.database_uri(), "--lab-controls",
                   "--admin-token-file", self.token_file, "--lease", str(self.lease_s), "--quiet"]
        log = os.path.join(self.log_dir, f"instance-{self.name(i).lower()}-{self.starts[i]}.log")
        try:
            server = Server(command, db=None, log_path=log)
        except RuntimeError as e:
            raise RuntimeError(f"{e}\n" + open(log, errors="replace").read()[-2000:]) from None
        self.started_pids.append(server.proc.pid)
        self.servers[i], self.ports[i] = server, server.port
        self._wait_healthy(i)

    def _wait_healthy(self, i):
        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        while True:
            try:
                with urllib.request.urlopen(self.urls()[i] + "/healthz", timeout=2) as res:
                    if res.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"instance {self.name(i)} does not answer GET /healthz; "
                                   f"see {self.servers[i].log.name}")
            time.sleep(0.05)

    def urls(self):
        return [f"http://127.0.0.1:{p}" for p in self.ports]

    # --- faults --------------------------------------------------------------------------------------------

    def pid(self, i):
        return self.servers[i].proc.pid

    def kill(self, i):
        """SIGKILL: no handler runs, no response is written, the claim stays behind in the database."""
        server = self.servers[i]
        server.proc.kill()
        server.proc.wait()
        server.log.close()
        self.servers[i] = None

    def restart(self, i):
        self._start_server(i)

    def pause(self, i):
        os.kill(self.pid(i), signal.SIGSTOP)
        self.paused.add(i)

    def resume(self, i):
        os.kill(self.pid(i), signal.SIGCONT)
        self.paused.discard(i)

    def revive(self):
        """Every instance running again: the stopped ones resumed, the dead ones restarted."""
        for i in list(self.paused):
            self.resume(i)
        for i, server in enumerate(self.servers):
            if server is None or server.proc.poll() is not None:
                if server is not None:
                    server.log.close()
                self.restart(i)

    # --- the books -----------------------------------------------------------------------------------------

    def sql(self, query):
        """Rows of a read-only query, each a list of strings (psql's unaligned output)."""
        out = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                              self.database_uri(read_only=True), "-c", query],
                             capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"psql: {out.stderr.strip()}\n  query: {query}")
        return [line.split("\t") for line in out.stdout.splitlines() if line]

    def sql_value(self, query):
        return self.sql(query)[0][0]

    # --- down ----------------------------------------------------------------------------------------------

    def close(self):
        """Everything we started, stopped; safe to call twice. A second Ctrl-C must not cut this short and
        leave a cluster running, so the stop signals wait until it is done."""
        held = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            self._stop_servers()
            self._stop_cluster()
        finally:
            for s, handler in held.items():
                signal.signal(s, handler)

    def _stop_servers(self):
        """A paused server cannot act on SIGTERM, so it is resumed first; one that ignores SIGTERM for
        STOP_TIMEOUT_S is killed."""
        for i in list(self.paused):
            try:
                self.resume(i)
            except ProcessLookupError:
                self.paused.discard(i)
        for i, server in enumerate(self.servers):
            if server is None:
                continue
            server.proc.send_signal(signal.SIGTERM)
        for i, server in enumerate(self.servers):
            if server is None:
                continue
            try:
                server.proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait()
            server.log.close()
            self.servers[i] = None

    def _stop_cluster(self):
        if self.socket_dir:
            # PostgreSQL's log (every unique violation is an ERROR line there: noisy by design) is kept beside
            # the instances' logs; the cluster goes with its directory.
            try:
                shutil.copyfile(os.path.join(self.socket_dir, "log"), os.path.join(self.log_dir, "postgresql.log"))
            except OSError:
                pass
            out = subprocess.run([PG_CLUSTER, "stop", self.socket_dir], capture_output=True, text=True)
            if out.returncode != 0:
                progress(f"warning: {out.stderr.strip()}")
            else:
                self.socket_dir = None

    def leftovers(self):
        """Processes we started that still exist (zombies excepted: they run nothing): [] after close()."""
        pids = self.started_pids + ([self.postmaster_pid] if self.postmaster_pid else [])
        left = []
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                left.append(pid)
        return left
