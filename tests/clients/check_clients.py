#!/usr/bin/env python3
"""check_clients.py: the two reference clients (examples/clients/) against a real stage 6 server, through faults, judged by the ledger. docs/learn/the-clients-side.md "The two reference clients and their test".

    python3 tests/clients/check_clients.py build/stages/stage6_scope_ttl right      [--right-client FILE]
    python3 tests/clients/check_clients.py build/stages/stage6_scope_ttl rekeying   [--rekeying-client FILE]

right: one intent per fault, each injected with the clients' test hook (--lab-fault) on loopback:
  pay-2  the server crashes right after the money moved (Lab-Crash: after-money) and is restarted here on the
         same --db file, as the grader does;
  pay-3  its first send outlasts the client's timeout (Lab-Delay-Ms), so the retries meet 409 until it ends;
  pay-4  503 (Lab-Fail: busy), with Retry-After;
  pay-5  a slow first send, and the CLIENT is killed (SIGKILL) while it waits; the same command, run again,
         resumes from the client's journal;
then a send that rebuilds its body (422: a client bug, not retried), a refused transfer (402: not retried),
giving up (unknown; run again, the same key finds the transfer) and a key past the server's retention (not
sent again). The verdict: the ledger (GET /admin/ledger) holds exactly one transfer per intent.

rekeying: the same slow first send on pay-2 and pay-4; the SDK-like call gives up on its 409s, the
application calls again under a new key, and the ledger holds two transfers for each of them: the damage
this client exists to show.

Every fault is long beside the clients' timeout (1 s against 5 s of delay), a run without a slow send
waits 5 s for each answer, and the rekeying checks count at least, not exactly, so no verdict depends on the
machine's load. Prints one line per check and "N passed, M failed"; exits 1 if a check failed, 2 if it
could not run. --right-client FILE runs another copy of the right client (to see this test fail on one that
re-keys).
"""
import argparse
import collections
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLIENTS = REPO / "examples" / "clients"
ADMIN_TOKEN = "check-clients-admin"
CRASH_EXIT_CODE = 86           # what Lab-Crash exits with (docs/reference/lab-controls.md "Lab controls")
START_TIMEOUT_S = 10           # a stage server prints its "listening on" line in well under a second
SLOW_RUN_TIMEOUT_S = 1.0       # the clients' --timeout in a run with a slow first send: it must give up on it
CALM_RUN_TIMEOUT_S = 5.0       # the --timeout of a run without one: no answer is expected to be late, so a
                               # loaded machine cannot turn one send into two and change a count of sends
SLOW_FIRST_SEND_MS = 5000      # Lab-Delay-Ms: five times the timeout, and longer than the SDK's three sends
CLIENT_RUN_LIMIT_S = 40        # one client run; the slowest here takes about 6 s
RETRY_AFTER_S = 1.0            # the Retry-After of the lab's 409 and 503 (common/http_reply.h:kRetryAfterSeconds)
SETTLE_MARGIN_S = 1.0          # after a delayed send's Lab-Delay-Ms: its commit, which takes milliseconds

checks = {"passed": 0, "failed": 0}
delayed_sends_end_by = [0.0]   # time.monotonic() by which every Lab-Delay-Ms send of a finished run has ended


def check(ok, sentence, detail=""):
    checks["passed" if ok else "failed"] += 1
    print(f"{'PASS' if ok else 'FAIL'}  {sentence}" + (f": {detail}" if detail and not ok else ""), flush=True)
    return ok


# ---- The server: started, watched, restarted after a lab crash on the same port and --db ------------------

class Server:
    def __init__(self, binary, folder):
        self.binary, self.folder = binary, folder
        self.db = os.path.join(folder, "bank.db")
        self.port, self.proc, self.restarts, self.stopping = 0, None, 0, False
        self.start()
        threading.Thread(target=self._restart_after_crashes, daemon=True).start()

    def start(self):
        log_path = os.path.join(self.folder, f"server-{self.restarts}.log")
        with open(log_path, "w") as log:
            self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--db", self.db, "--admin-token",
                                          ADMIN_TOKEN, "--lab-controls", "--quiet"], stdout=log, stderr=log)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", Path(log_path).read_text())
            if found:
                self.port = int(found.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"the server did not start: {Path(log_path).read_text()}")

    def _restart_after_crashes(self):
        while not self.stopping:
            code = self.proc.wait()
            if self.stopping or code != CRASH_EXIT_CODE:
                return
            self.restarts += 1
            self.start()   # the same port and the same database file: what the money and the keys survive on

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.stopping = True
        self.proc.terminate()
        self.proc.wait(timeout=10)

    def call(self, method, path, token=ADMIN_TOKEN, body=None):
        request = urllib.request.Request(self.url + path, method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Authorization": f"Bearer {token}",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def ledger(self):
        entries, after = [], 0
        while after is not None:
            page = self.call("GET", f"/admin/ledger?after={after}&limit=1000")
            entries += page["entries"]
            after = page["next"]
        return entries

    def transfers_per_intent(self):
        return collections.Counter(entry.get("metadata", {}).get("intent") for entry in self.ledger())

    def settled_transfers_per_intent(self):
        """Transfers per intent once every delayed send has ended: a first send sleeping in the server may
        still move money after its client moved on (a client that re-keys leaves such sends behind)."""
        time.sleep(max(0.0, delayed_sends_end_by[0] - time.monotonic()))
        return self.transfers_per_intent()


def open_bank(server):
    """A client with two accounts: (token, source account, target account)."""
    shop = server.call("POST", "/admin/clients", body={"name": "shop"})
    source = server.call("POST", "/admin/accounts", body={"client_id": shop["id"], "balance": 1_000_000,
                                                           "currency": "USD"})
    target = server.call("POST", "/admin/accounts", body={"client_id": shop["id"], "balance": 0,
                                                           "currency": "USD"})
    return shop["token"], source["id"], target["id"]


# ---- The clients, run as a user runs them ------------------------------------------------------------------

def client_command(script, server, token, source, target, name, intents, *extra):
    slow = any("Lab-Delay-Ms" in part for part in extra)
    return [sys.executable, str(script), "--url", server.url, "--token", token, "--name", name,
            "--intents", str(intents), "--from", str(source), "--to", str(target), "--amount", "100",
            "--timeout", str(SLOW_RUN_TIMEOUT_S if slow else CALM_RUN_TIMEOUT_S), "--verbose", *extra]


def run(command, kill_after_line=None):
    """Runs a client; returns (exit code, stdout, stderr). With kill_after_line, SIGKILLs it 0.3 s after
    its stderr shows a line starting so (the crash of the client itself, between two sends)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_COLOR": "1"})
    err_lines = []

    def read_stderr():
        for line in proc.stderr:
            err_lines.append(line)
            if kill_after_line and line.startswith(kill_after_line):
                time.sleep(0.3)
                proc.send_signal(signal.SIGKILL)

    reader = threading.Thread(target=read_stderr)
    reader.start()
    try:
        out = proc.stdout.read()
        proc.wait(timeout=CLIENT_RUN_LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out = ""
    reader.join()
    if any("Lab-Delay-Ms" in part for part in command):   # a send of this run may still be sleeping
        delayed_sends_end_by[0] = time.monotonic() + SLOW_FIRST_SEND_MS / 1000 + SETTLE_MARGIN_S
    return proc.returncode, out, "".join(err_lines)


def line_of(out, name):
    return next((line for line in out.splitlines() if line.startswith(name + " ")), "")


def answer_times(err, name):
    """When each send of intent `name` was answered, in seconds since the client started (its --verbose
    lines end with "[1.532 s]"), in order."""
    return [float(m.group(1)) for m in re.finditer(rf"^{re.escape(name)} send \d+ .*\[(\d+\.\d+) s\]$", err, re.M)]


def journal_row(journal, name):
    with sqlite3.connect(journal) as db:
        return db.execute("SELECT key, state FROM intents WHERE name = ?", (name,)).fetchone()


# ---- right: one transfer per intent, whatever happens --------------------------------------------------------

def check_right(binary, script, folder):
    server = Server(binary, folder)
    try:
        token, source, target = open_bank(server)
        journal = os.path.join(folder, "shop.journal")
        faults = ["--lab-fault", "pay-2#1 Lab-Crash: after-money",
                  "--lab-fault", f"pay-3#1 Lab-Delay-Ms: {SLOW_FIRST_SEND_MS}",
                  "--lab-fault", "pay-4#1 Lab-Fail: busy",
                  "--lab-fault", f"pay-5#1 Lab-Delay-Ms: {SLOW_FIRST_SEND_MS}"]
        command = client_command(script, server, token, source, target, "pay", 6, "--journal", journal, *faults)
        started = time.monotonic()
        code, out, err = run(command, kill_after_line="pay-5 send 1 ")
        check(code == -signal.SIGKILL, "the right client is killed while pay-5's first send is still running",
              f"exit {code}\n{out}{err}")
        check(server.restarts == 1 and "done" in line_of(out, "pay-2") and "earlier send" in line_of(out, "pay-2"),
              "pay-2: the server crashed after the money moved, came back on the same --db, and the retry got "
              "the stored answer", f"restarts {server.restarts}; " + line_of(out, "pay-2"))
        check(re.search(r"pay-3 send \d+ .*: 409 request-in-progress", err) is not None
              and "done" in line_of(out, "pay-3") and "earlier send" in line_of(out, "pay-3"),
              "pay-3: the retries of a first send that outlasted the timeout met 409 and then its answer",
              line_of(out, "pay-3") + "\n" + err)
        check(re.search(r"pay-4 send 1 .*: 503", err) is not None and "done" in line_of(out, "pay-4"),
              "pay-4: a 503 with Retry-After was retried with the same key", line_of(out, "pay-4"))
        answered = answer_times(err, "pay-4")
        check(len(answered) >= 2 and answered[1] - answered[0] >= RETRY_AFTER_S,
              f"pay-4: the retry came no sooner than the 503's Retry-After ({RETRY_AFTER_S:g} s)", str(answered))
        key_before_crash = journal_row(journal, "pay-5")
        check(key_before_crash is not None and key_before_crash[1] == "pending",
              "pay-5: its key was in the journal before the first send, and the intent still open after the kill",
              str(key_before_crash))

        # The same command again, the client after its restart (without the faults, which were for one run).
        code, out, err = run(command[:-len(faults)])
        check(code == 0, "run again, the right client finishes every intent", f"exit {code}\n{out}{err}")
        pay5_sends = [line for line in err.splitlines() if line.startswith("pay-5 send ")]
        check(key_before_crash is not None and "done" in line_of(out, "pay-5") and pay5_sends
              and all(f"(key {key_before_crash[0]})" in line for line in pay5_sends),
              "pay-5 resumed from the journal: every send under the key it had before the kill", err)
        check(all("not sent again" in line_of(out, f"pay-{n}") for n in range(1, 5)),
              "pay-1 to pay-4, finished before the kill, were not sent again", out)
        per_intent = server.settled_transfers_per_intent()
        check(all(per_intent[f"pay-{n}"] == 1 for n in range(1, 7)) and sum(per_intent.values()) == 6,
              "6 intents, 6 ledger entries: exactly one transfer per intent", dict(per_intent))
        balance = server.call("GET", f"/accounts/{target}", token=token)["balance"]
        check(balance == 600, "the target account holds 6 x 100", str(balance))
        print(f"right client: 6 intents, {sum(per_intent.values())} ledger entries "
              f"({time.monotonic() - started:.1f} s, server restarts {server.restarts})", flush=True)

        # 422: a retry that rebuilt its body is this client's bug: reported, never retried.
        code, out, err = run(client_command(script, server, token, source, target, "bug", 1, "--journal", journal,
                                            "--lab-fault", f"bug-1#1 Lab-Delay-Ms: {SLOW_FIRST_SEND_MS}",
                                            "--lab-fault", "bug-1#2 rebuild-body"))
        check(code == 1 and "client-bug" in line_of(out, "bug-1") and "2 sends" in line_of(out, "bug-1"),
              "bug-1: 422 idempotency-key-reused is reported as a client bug after the send that caused it",
              f"exit {code}\n{out}")
        check(server.settled_transfers_per_intent()["bug-1"] == 1, "bug-1: its first send, the only one, moved the money once")

        # 402: the server's final word, not retried.
        code, out, err = run(client_command(script, server, token, source, target, "big", 1, "--journal", journal,
                                            "--amount", "100000000"))
        check(code == 0 and "refused  402 insufficient-funds" in line_of(out, "big-1")
              and "1 sends" in line_of(out, "big-1"), "big-1: 402 is final: one send, refused", out)

        # Giving up: unknown, and the key stays. Run again within retention: the same key, one transfer.
        give_up = client_command(script, server, token, source, target, "late", 2, "--journal", journal,
                                 "--give-up-after", "0.2")
        code, out, err = run(give_up + ["--lab-fault", "late-1#1 Lab-Fail: busy",
                                        "--lab-fault", "late-2#1 Lab-Fail: busy"])
        check(code == 1 and "unknown" in line_of(out, "late-1") and "unknown" in line_of(out, "late-2"),
              "late-1, late-2: a 503 whose Retry-After is past the client's patience: given up, reported unknown",
              out)
        with sqlite3.connect(journal) as db:   # set the state up directly: late-2 first sent two days ago
            db.execute("UPDATE intents SET first_sent_ms = first_sent_ms - 2 * 86400 * 1000 WHERE name = 'late-2'")
        code, out, err = run(give_up[:-2] + ["--resume"])
        check("done" in line_of(out, "late-1") and "1 sends" in line_of(out, "late-1"),
              "late-1: run again, the same key moved the money", line_of(out, "late-1"))
        check("unknown" in line_of(out, "late-2") and "retention" in line_of(out, "late-2")
              and "0 sends" in line_of(out, "late-2"),
              "late-2: its first send is older than half the published retention: not sent again", out)
        per_intent = server.settled_transfers_per_intent()
        check(per_intent["late-1"] == 1 and per_intent["late-2"] == 0 and per_intent["big-1"] == 0,
              "late-1 once, late-2 and big-1 never", dict(per_intent))
    finally:
        server.stop()


# ---- rekeying: the double payment it exists to show ------------------------------------------------------------

def check_rekeying(binary, script, folder):
    server = Server(binary, folder)
    try:
        token, source, target = open_bank(server)
        started = time.monotonic()
        code, out, err = run(client_command(script, server, token, source, target, "pay", 4,
                                            "--lab-fault", f"pay-2#1 Lab-Delay-Ms: {SLOW_FIRST_SEND_MS}",
                                            "--lab-fault", f"pay-4#1 Lab-Delay-Ms: {SLOW_FIRST_SEND_MS}"))
        check(code == 0 and re.search(r"in [23] calls", line_of(out, "pay-2"))
              and re.search(r"in [23] calls", line_of(out, "pay-4")),
              "pay-2, pay-4: the SDK call spent its retries on 409s and the application called again",
              f"exit {code}\n{out}{err}")
        per_intent = server.settled_transfers_per_intent()
        entries = sum(per_intent.values())
        check(entries > 4, f"4 intents, {entries} ledger entries: more transfers than intents", dict(per_intent))
        check(per_intent["pay-2"] >= 2 and per_intent["pay-4"] >= 2,
              "each slow intent moved at least twice: its first call's transfer and its second's", dict(per_intent))
        print(f"rekeying client: 4 intents, {entries} ledger entries ({time.monotonic() - started:.1f} s)",
              flush=True)
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server", help="the stage 6 server binary (build/stages/stage6_scope_ttl)")
    parser.add_argument("which", choices=["right", "rekeying"])
    parser.add_argument("--right-client", default=str(CLIENTS / "right_client.py"), metavar="FILE")
    parser.add_argument("--rekeying-client", default=str(CLIENTS / "rekeying_client.py"), metavar="FILE")
    args = parser.parse_args()
    if not os.access(args.server, os.X_OK):
        print(f"check_clients: {args.server} is not an executable", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="check-clients-") as folder:
        try:
            if args.which == "right":
                check_right(args.server, args.right_client, folder)
            else:
                check_rekeying(args.server, args.rekeying_client, folder)
        except (RuntimeError, OSError) as error:
            print(f"check_clients: could not run: {error}", file=sys.stderr)
            return 2
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    return 1 if checks["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
