#!/usr/bin/env python3
"""faulty_proxy.py: a test fixture, not a lesson. A real stage server behind a proxy that breaks one thing,
so a grader test can check that the grader names that fault right (grader/CMakeLists.txt, issue 9).

    grader --stage 6 --check stage6.foreign-own-body --server \\
      "python3 tests/grader/faulty_proxy.py --fault leak-replays --port {port} -- \\
       build/stages/stage6_scope_ttl --db {db} --admin-token {admin_token} --lab-controls --quiet"

The command after "--" is started with "--port 0" added (it prints the port it got); the proxy listens on
--port and forwards each request to it. The grader sends one request per connection ("Connection: close"),
so the proxy does too. When the server ends (a Lab-Crash), the proxy ends with it, so the grader sees the
crash and restarts both.

Faults (--fault, one or none):
  leak-replays        remembers each 201 by its Idempotency-Key value alone, not by client or endpoint, and
                      answers any later POST with that key with it (Idempotent-Replayed: true): another
                      client's, or another endpoint's, key decides the request
  no-balance-after    drops "from_balance_after" from the 201 of POST /payouts
  other-409           answers the second POST with an Idempotency-Key seen before 409 /problems/conflict
                      (a problem type the contract does not have), once per key
  next-on-full-page   GET /admin/ledger names a next cursor on an exactly full last page (an empty page follows)
  hang-after-402      after its first 402 answers no transfer or payout again (each one waits for ever), as a
                      server whose refusal path never released a lock: the check that saw the 402 passes on
                      the surface, and only a request after it shows the server is stuck
  late-repeats        holds a POST whose Idempotency-Key is in a request still running until that request has
                      been answered, as a server that locks the key for the whole request: each repeat is
                      answered (a replay) only after the first, however long the first one sleeps
  padded-answers      pads every answer's body with spaces (JSON still: whitespace may follow a value) to
                      just under the grader's 1 MiB cap on one answer: the grader's memory must stay
                      bounded however large the answers it keeps
  header-flood        adds 140,000 tiny header fields to every answer (under 1 MiB): parsed, each would
                      cost the grader tens of bytes; it must refuse the answer, not hold it
  replayed-capitalised  writes every "Idempotent-Replayed: true" as "Idempotent-Replayed: True"
  changed-body-409    answers a POST whose key came before with another body 409 request-in-progress (with
                      Retry-After: 1), without forwarding it: a server that says "in progress" for a conflict
  refuse-repeats      answers every POST whose key came before 422 idempotency-key-reused, whatever its body,
                      without forwarding it: a fingerprint that differs on every send
  policy-nulls        publishes lease_seconds and retry_after_seconds as null in GET /idempotency-policy and
                      drops Retry-After from every 409: a server whose policy describes a design without them
  stores-503          lists 503 in the policy's stored_statuses and keeps it: a 503 answered to a key (Lab-Fail:
                      busy) is answered again, with Idempotent-Replayed: true, to every later POST with that key
  no-replay-header    drops Idempotent-Replayed from every answer, while the policy still lists 201 in
                      stored_statuses: a policy that promises replays the server does not mark
  no-after-commit     drops the header "Lab-Crash: after-commit-N" before forwarding: a server that never
                      implemented that lab control
  lockless            answers a POST that comes while another POST is being served 503 service-unavailable,
                      "cannot start a transaction within a transaction", without forwarding it: a server whose
                      threads share one database connection with no lock around it
  deadlock-on-overlap when a POST comes while another is being served, neither is answered, nor any request
                      after them: a server whose threads take two locks in opposite orders
  overdraft-as-repeat answers 200 {"status":"already processed"} where the server answered a POST 402
                      insufficient-funds: a server that reads every integrity error of its transaction (a
                      CHECK on the balance too) as the key's UNIQUE violation, so an overdraft is "a repeat"
  replays-another-entry  every replay (an answer marked Idempotent-Replayed: true) names another transfer: its
                      "id" plus 1000, the money not moved again: a server whose lookup returns another key's row
  empty-replays       every replay keeps its status and loses its body: a server that stored the status alone
and how it accepts connections:
  --backlog N         the listen backlog (default 128); Python's http.server uses 5
  --serial            one request at a time on one thread, as http.server.HTTPServer does
  --max-in-flight N   serves N requests at once and resets every connection beyond them (a thread pool of N
                      that turns the rest away, as a kernel with tcp_abort_on_overflow does)

Standard library only.
"""
import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import threading

BACKEND_START_TIMEOUT_S = 10  # a stage server prints its "listening on" line in well under a second
PADDED_BYTES = 1024 * 1024 - 1024  # padded-answers: just under the grader's 1 MiB cap on one answer (the most a server can make it keep)
HEADER_FLOOD = "".join(f"\r\nx{i % 10}: y" for i in range(140_000))  # header-flood: 980,000 bytes
LATE_REPEAT_PATIENCE_S = 12  # above the longest Lab-Delay-Ms (10 s), under the grader's response timeout


def read_message(sock, is_response):
    """One HTTP/1.1 message framed by Content-Length; without one, a request has no body and a response ends
    with the stream. (head, body), or None if the stream ended first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = None
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None and not is_response:
        length = 0
    while length is None or len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            if length is None:
                break
            return None
        body += chunk
    return head.decode("latin-1"), body


def header(head, wanted):
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == wanted.lower():
            return value.strip()
    return None


def build(head, body, extra_headers=()):
    lines = [line for line in head.split("\r\n") if line.partition(":")[0].strip().lower() != "content-length"]
    lines += list(extra_headers) + ["Content-Length: %d" % len(body)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class Proxy:
    def __init__(self, fault, backend_port):
        self.fault = fault
        self.backend_port = backend_port
        self.by_key = {}  # Idempotency-Key value -> stored 201 (leak-replays), or "seen"/"answered" (other-409)
        self.lock = threading.Lock()  # guards by_key
        self.hanging = threading.Event()  # hang-after-402: a 402 was answered
        self.answered = {}  # late-repeats: Idempotency-Key value -> set once its first request is answered
        self.first_body = {}  # changed-body-409, refuse-repeats: Idempotency-Key value -> the body first sent with it
        self.stored_503 = {}  # stores-503: Idempotency-Key value -> the 503 answered to it
        self.posts_in_flight = 0  # lockless, deadlock-on-overlap: POSTs being served now (guarded by lock)
        self.deadlocked = threading.Event()  # deadlock-on-overlap: two POSTs met; nothing is answered again

    def forward(self, raw):
        with socket.create_connection(("127.0.0.1", self.backend_port)) as backend:
            backend.sendall(raw)
            return read_message(backend, True)

    def conflict_for(self, request):
        """other-409: the second request with a key seen before gets 409 /problems/conflict, once per key.
        Decided in arrival order (the accept loop reads each request before a thread serves it): in threads,
        a retry could overtake the lost attempt it repeats, and the lost one would get the 409."""
        head, _ = request
        key = header(head, "Idempotency-Key") if head.startswith("POST ") else None
        if key is None:
            return None
        with self.lock:
            if self.by_key.get(key) != "seen":
                self.by_key.setdefault(key, "seen")
                return None
            self.by_key[key] = "answered"
        problem = json.dumps({"type": "/problems/conflict", "title": "Conflict", "status": 409,
                              "detail": "this key was used before"}).encode()
        return build("HTTP/1.1 409 Conflict\r\nContent-Type: application/problem+json\r\nConnection: close", problem)

    def answer(self, request):
        head, body = request
        method, path = head.split(" ")[:2]
        key = header(head, "Idempotency-Key") if method == "POST" else None
        if self.fault == "hang-after-402" and self.hanging.is_set() and path in ("/transfers", "/payouts"):
            threading.Event().wait()  # for ever: the grader gives up and closes the connection
        if self.fault in ("lockless", "deadlock-on-overlap") and method == "POST":
            with self.lock:
                overlap = self.posts_in_flight > 0
                self.posts_in_flight += 1
            try:
                if self.fault == "deadlock-on-overlap" and overlap:
                    self.deadlocked.set()
                if self.deadlocked.is_set():
                    threading.Event().wait()  # for ever
                if overlap:
                    problem = json.dumps({"type": "/problems/service-unavailable", "title": "Service Unavailable",
                                          "status": 503,
                                          "detail": "cannot start a transaction within a transaction"}).encode()
                    return build("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
                                 "Retry-After: 1\r\nConnection: close", problem)
                response = self.answer_now(head, body, method, path, key)
                if self.deadlocked.is_set():
                    threading.Event().wait()  # the first of the two never finishes either
                return response
            finally:
                with self.lock:
                    self.posts_in_flight -= 1
        if self.deadlocked.is_set():
            threading.Event().wait()  # for ever: the deadlocked server answers nothing again
        return self.answer_now(head, body, method, path, key)

    def answer_now(self, head, body, method, path, key):
        if self.fault == "refuse-repeats" and key is not None:
            with self.lock:
                repeat = key in self.first_body
                self.first_body.setdefault(key, body)
            if repeat:
                problem = json.dumps({"type": "/problems/idempotency-key-reused", "title": "Idempotency-Key reused",
                                      "status": 422, "detail": "this key was first used with a different request body"}).encode()
                return build("HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/problem+json\r\n"
                             "Connection: close", problem)
        if self.fault == "changed-body-409" and key is not None:
            with self.lock:
                changed = self.first_body.setdefault(key, body) != body
            if changed:
                problem = json.dumps({"type": "/problems/request-in-progress", "title": "Request in progress",
                                      "status": 409, "detail": "a request with this key is in progress"}).encode()
                return build("HTTP/1.1 409 Conflict\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\n"
                             "Connection: close", problem)
        if self.fault == "no-after-commit" and (header(head, "Lab-Crash") or "").startswith("after-commit-"):
            head = "\r\n".join(line for line in head.split("\r\n") if line.partition(":")[0].strip().lower() != "lab-crash")
        with self.lock:
            if self.fault == "stores-503" and key in self.stored_503:
                stored_head, stored_body = self.stored_503[key]
                return build(stored_head, stored_body, ["Idempotent-Replayed: true"])
            if self.fault == "leak-replays" and key in self.by_key:
                stored_head, stored_body = self.by_key[key]
                return build(stored_head, stored_body, ["Idempotent-Replayed: true"])
        first = None  # late-repeats: the event this request sets once answered, if it is its key's first
        if self.fault == "late-repeats" and key is not None:
            with self.lock:
                earlier = self.answered.get(key)
                if earlier is None:
                    first = self.answered[key] = threading.Event()
            if earlier is not None:
                earlier.wait(LATE_REPEAT_PATIENCE_S)
        try:
            response = self.forward(build(head, body))
        finally:
            if first is not None:
                first.set()
        if response is None:
            return None  # the server died (a Lab-Crash): the client gets no answer either
        res_head, res_body = response
        status = res_head.split(" ")[1]
        if self.fault == "leak-replays" and key is not None and status == "201":
            with self.lock:
                self.by_key.setdefault(key, (res_head, res_body))
        if self.fault == "hang-after-402" and status == "402":
            self.hanging.set()
        if self.fault == "overdraft-as-repeat" and status == "402":
            res_head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close"
            res_body = json.dumps({"status": "already processed"}).encode()
        if self.fault == "next-on-full-page" and path.startswith("/admin/ledger") and status == "200":
            page = json.loads(res_body)
            query = dict(pair.split("=") for pair in path.partition("?")[2].split("&") if "=" in pair)
            limit = int(query.get("limit", 100))
            if page["next"] is None and page["entries"] and len(page["entries"]) == limit:
                page["next"] = page["entries"][-1]["id"]
                res_body = json.dumps(page).encode()
        if self.fault == "no-balance-after" and path == "/payouts" and status == "201":
            entry = json.loads(res_body)
            entry.pop("from_balance_after", None)
            res_body = json.dumps(entry).encode()
        if self.fault == "padded-answers":
            res_body += b" " * max(0, PADDED_BYTES - len(res_body))
        if self.fault == "header-flood":
            res_head += HEADER_FLOOD
        if self.fault == "stores-503" and key is not None and status == "503":
            with self.lock:
                self.stored_503.setdefault(key, (res_head, res_body))
        policy = path == "/idempotency-policy" and status == "200"
        if self.fault == "stores-503" and policy:
            document = json.loads(res_body)
            document["stored_statuses"] = document.get("stored_statuses", []) + [503]
            res_body = json.dumps(document).encode()
        if self.fault == "policy-nulls" and policy:
            document = json.loads(res_body)
            document["lease_seconds"] = document["retry_after_seconds"] = None
            res_body = json.dumps(document).encode()
        if self.fault == "policy-nulls" and status == "409":
            res_head = "\r\n".join(line for line in res_head.split("\r\n")
                                   if line.partition(":")[0].strip().lower() != "retry-after")
        if self.fault == "no-replay-header":
            res_head = "\r\n".join(line for line in res_head.split("\r\n")
                                   if line.partition(":")[0].strip().lower() != "idempotent-replayed")
        if self.fault == "replayed-capitalised":
            res_head = res_head.replace("Idempotent-Replayed: true", "Idempotent-Replayed: True")
        replay = header(res_head, "Idempotent-Replayed") == "true"
        if self.fault == "replays-another-entry" and replay and res_body:
            entry = json.loads(res_body)
            if isinstance(entry, dict) and isinstance(entry.get("id"), int):
                entry["id"] += 1000
                res_body = json.dumps(entry).encode()
        if self.fault == "empty-replays" and replay:
            res_body = b""
        return build(res_head, res_body)

    def serve(self, client, request=None, response=None):
        with client:
            try:
                if request is None:
                    request = read_message(client, False)
                if response is None and request is not None:
                    response = self.answer(request)
                if response is not None:
                    client.sendall(response)
            except OSError as e:  # the client went away: the next one is served all the same
                print("faulty_proxy: %r" % e, file=sys.stderr, flush=True)


def serve_then_release(proxy, client, in_flight, request=None, response=None):
    try:
        proxy.serve(client, request, response)
    finally:
        if in_flight:
            in_flight.release()


def follow(backend):
    """Reads the server's log lines (a full pipe would block it) until it ends, then ends the proxy: after a
    crash the grader caused, it restarts both."""
    for _ in backend.stdout:
        pass
    backend.wait()
    os._exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--fault", choices=["leak-replays", "no-balance-after", "other-409", "next-on-full-page",
                                            "hang-after-402", "late-repeats", "padded-answers", "header-flood",
                                            "replayed-capitalised", "changed-body-409", "refuse-repeats",
                                            "policy-nulls", "stores-503", "no-replay-header", "no-after-commit",
                                            "lockless", "deadlock-on-overlap", "overdraft-as-repeat",
                                            "replays-another-entry", "empty-replays"])
    parser.add_argument("--backlog", type=int, default=128)
    parser.add_argument("--serial", action="store_true")
    parser.add_argument("--max-in-flight", type=int)
    parser.add_argument("server", nargs=argparse.REMAINDER, help="-- the server command")
    args = parser.parse_args()
    command = args.server[1:] if args.server[:1] == ["--"] else args.server
    if not command:
        parser.error("give the server command after --")

    backend = subprocess.Popen(command + ["--port", "0"], stdout=subprocess.PIPE, text=True)
    line = backend.stdout.readline()  # "listening on http://127.0.0.1:PORT"
    if "listening on" not in line:
        sys.exit("faulty_proxy: the server did not start: %r" % line)
    backend_port = int(line.rsplit(":", 1)[1])
    threading.Thread(target=follow, args=(backend,), daemon=True).start()

    proxy = Proxy(args.fault, backend_port)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(args.backlog)
    print("listening on http://127.0.0.1:%d" % args.port, flush=True)
    in_flight = threading.BoundedSemaphore(args.max_in_flight) if args.max_in_flight else None
    while True:
        client, _ = listener.accept()
        if args.serial:
            proxy.serve(client)
        elif in_flight and not in_flight.acquire(blocking=False):
            # Linger 0: close() sends RST, so the client sees "connection reset" before any answer.
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()
        elif args.fault == "other-409":
            try:  # read here, in arrival order (Proxy.conflict_for)
                client.settimeout(10)
                request = read_message(client, False)
            except OSError:
                request = None
            if request is None:
                client.close()
                continue
            response = proxy.conflict_for(request)
            threading.Thread(target=serve_then_release, args=(proxy, client, in_flight, request, response),
                             daemon=True).start()
        else:
            threading.Thread(target=serve_then_release, args=(proxy, client, in_flight), daemon=True).start()


if __name__ == "__main__":
    main()
