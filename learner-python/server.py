#!/usr/bin/env python3
"""server.py: the Python learner's server, one server that grows from stage 1 to stage 6. docs/learn/for-learners.md "The Python starter".

    python3 learner-python/server.py --port 8080 --db /tmp/me.db --admin-token secret --lab-controls
    make grade STAGE=N      (in a copy made with `make starter LANG=python`: grades this server)

Stage 1 (where the starter begins) executes every request. Each later stage adds one lesson, marked in the
reference as a region (# LAB BEGIN <stage> ... # LAB END, scripts/lab-regions.py); in the starter each region is
a TODO naming its chapter and heading, and what stands there instead keeps the behaviour of the stages
before. The lessons are here and in key_table.py; the plumbing (HTTP, the bank, problem+json, the lab clock
and controls, RFC 8785, the key header's parser) is given: examples/python/stage1_server.py and plumbing.py.
Standard library only. It mirrors the C++ learner (learner/money_handler.cc), function for function.
"""
import sys
import threading
import time

from key_table import COMPLETED, KeyTable, KeyTaken, Scope
from plumbing import (MAX_KEY_LENGTH, MONEY_PROBLEMS, PROBLEMS, RETRY_AFTER_SECONDS, LabBank, LabHandler,
                      Problem, in_progress, parse_idempotency_key, request_fingerprint, stage1_server)

REPLAYED_HEADER = "Idempotent-Replayed"  # on every replayed answer, never on the first (stage 5)
SWEEP_INTERVAL_SECONDS = 1  # real time between sweeps: expired keys linger at most this long (stage 6)
SWEEP_BATCH = 500           # rows per transaction: short write locks, handlers stay fast
ENDPOINTS = {kind: path for path, kind in stage1_server.KINDS.items()}  # "transfer" -> "/transfers"


# LAB BEGIN 4 the answer to a repeat after completion, rebuilt from what the key recorded
# (Stage 5 replaces it: the balance is today's and created_at is a new time.)
def rebuild_outcome(bank, row):
    if row["entry_id"] is None:
        raise Problem(row["problem_type"], row["problem_detail"])
    entry = stage1_server.entry_json(bank.query("SELECT * FROM ledger WHERE id = ?", row["entry_id"])[0])
    balance = bank.query(stage1_server.ACCOUNT, entry["from_account"])[0]["balance"]
    return 201, {**entry, "created_at": bank.now_ms(), "from_balance_after": balance}
# LAB END


# LAB BEGIN 5 the answer to a repeat after completion: the response first sent, byte for byte
def replay(row):
    stored = (row["response_content_type"], bytes(row["response_body"]))
    return row["response_status"], stored, {REPLAYED_HEADER: "true"}
# LAB END


class Handler(LabHandler):
    def route(self, method, path, query, raw):
        # LAB BEGIN 6 the published policy: how long keys are kept, and the rest of the rules
        if (method, path) == ("GET", "/idempotency-policy"):
            return 200, idempotency_policy(self.server.options)
        # LAB END
        return super().route(method, path, query, raw)

    def move_money(self, kind, raw):
        """POST /transfers and POST /payouts (learner/money_handler.cc:handle_money_request)."""
        bank, keys, options = self.server.bank, self.server.keys, self.server.options
        client_id = self.authenticate()                                   # Who is asking? (401)

        # Which key? (400)
        # LAB BEGIN 2 read the Idempotency-Key header (a missing or malformed key is a 400)
        key = parse_idempotency_key(self.headers.get_all("Idempotency-Key"))
        # LAB ELSE
        key = ""  # no key table yet: the key is not read
        # LAB END

        # Is the body a valid request? (415, 413, 400) A 400 never touches the key table.
        request = stage1_server.parse_money_request(kind, self.content_type(), raw)

        fingerprint = ""
        # LAB BEGIN 3 the fingerprint: SHA-256 of the body's RFC 8785 canonical form
        fingerprint = request_fingerprint(raw)
        # LAB END
        scope = Scope(client_id, ENDPOINTS[kind], key)
        lease_ms, ttl_ms = options.lease * 1000, options.key_ttl * 1000

        # Is this a repeat? The INSERT decides: for a key already taken it fails on the UNIQUE constraint.
        try:
            claim = keys.claim(scope, bank.now_ms(), fingerprint, lease_ms, ttl_ms)
        except KeyTaken:
            row = keys.find(scope)
            if row is None:
                raise in_progress()  # released between our INSERT and this SELECT: retry (409)
            # LAB BEGIN 3 the same key with another body: which did the client mean? Refuse (422), move nothing
            if row["fingerprint"] != fingerprint:
                raise Problem("idempotency-key-reused", "this key was first used with a different request body")
            # LAB END
            # LAB BEGIN 5 completed: replay the stored response
            if row["state"] == COMPLETED:
                return replay(row)
            # LAB END
            # LAB BEGIN 4 answer by the key's state: its outcome, 409 while in progress, or take over a dead claim
            if row["state"] == COMPLETED:
                return rebuild_outcome(bank, row)
            claim = keys.take_over(row, bank.now_ms(), lease_ms) if row["locked_until"] <= bank.now_ms() else None
            if claim is None:
                raise in_progress()
            # LAB ELSE
            return 200, {"status": "already processed"}
            # LAB END

        delay = self.lab_header("Lab-Delay-Ms")
        if delay.isascii() and delay.isdigit():
            time.sleep(min(int(delay), stage1_server.MAX_LAB_DELAY_MS) / 1000)
        self.crash_if_asked("before-money")
        busy = self.lab_header("Lab-Fail") == "busy"

        # LAB BEGIN 4 move the money and complete the key in one transaction, only while our claim still holds
        try:
            with bank.transaction() as db:
                if not keys.holds(db, claim):
                    fenced_out = True  # a retry took over: the transaction ends with nothing written
                else:
                    fenced_out = False
                    try:
                        status, outcome = 201, bank.move_money_in(db, client_id, request, busy)
                        body = outcome
                    except Problem as refusal:
                        if refusal.slug not in MONEY_PROBLEMS:
                            raise  # 503 busy: not an outcome; the money's transaction rolls back
                        status, outcome, body = refusal.status, refusal, refusal.body()
                    keys.complete(db, claim, outcome, (status, *stage1_server.rendered(status, body)))
        except BaseException:
            # Not the request's fault (database busy: 503; a bug: 500). The transaction rolled back, so nothing
            # moved: free the key (fenced, so only our own claim) for a retry, and let the error be answered.
            keys.release(claim)
            raise
        if fenced_out:
            raise in_progress()
        # LAB ELSE
        status, body = 201, bank.move_money(client_id, request, busy)
        # LAB END
        self.crash_if_asked("after-money")
        return status, body


def problem_summary(slug):
    """What a problem of this type looks like on the wire: {"status": 409, "type": "/problems/..."}."""
    return {"status": PROBLEMS[slug][0], "type": "/problems/" + slug}


def idempotency_policy(options):
    """GET /idempotency-policy (stage 6): every value from the code or the options in force, so the published
    policy cannot drift from what the server does (stages/6_scope_ttl/idempotency_policy.cc)."""
    # LAB BEGIN 6 the published policy: every value from the code or the options in force
    return {
        "scope": ["client", "endpoint", "key"],
        "endpoints": list(stage1_server.KINDS),
        "key_ttl_seconds": options.key_ttl,
        "lease_seconds": options.lease,
        "retry_after_seconds": RETRY_AFTER_SECONDS,
        "sweep_interval_seconds": SWEEP_INTERVAL_SECONDS,
        "key_syntax": {"header": "Idempotency-Key", "format": "RFC 8941 sf-string", "bare_keys_accepted": True,
                       "characters": "printable ASCII 0x20-0x7E", "min_length": 1, "max_length": MAX_KEY_LENGTH},
        "fingerprint": {"algorithm": "SHA-256", "input": "RFC 8785 canonical form of the whole request body"},
        # The outcomes that complete a key (Handler.move_money): the 201 of an entry, or a money problem.
        "stored_statuses": sorted({201} | {PROBLEMS[slug][0] for slug in MONEY_PROBLEMS}),
        "not_stored": "validation errors (400 before the key is claimed) and 5xx (the claim is released)",
        "replay_header": REPLAYED_HEADER,
        "in_progress": problem_summary("request-in-progress"),
        "body_mismatch": problem_summary("idempotency-key-reused"),
        "rule": "Retention must outlast your retry horizon: a retry sent after key_ttl_seconds is a new request.",
    }
    # LAB ELSE
    return {}
    # LAB END


def run_sweeper(keys, bank):
    """Deletes expired keys in the background, batch after batch, then sleeps. Expiry is enforced twice:
    claim() ignores an expired row of its own scope (correctness never waits for the sweeper), and this
    keeps the table from growing without bound with keys nobody repeats."""
    while True:
        try:
            while keys.delete_expired(bank.now_ms(), SWEEP_BATCH) == SWEEP_BATCH:
                pass  # a full batch: more may be waiting
        except Exception as error:  # noqa: BLE001 (a busy database: the next sweep tries again)
            print(f"sweeper: {error!r}", file=sys.stderr, flush=True)
        time.sleep(SWEEP_INTERVAL_SECONDS)


def started(server):
    """Work once the server is up: the key table, and (stage 6) the sweeper."""
    server.keys = KeyTable(server.bank)
    # LAB BEGIN 6 the sweeper deletes expired keys
    threading.Thread(target=run_sweeper, args=(server.keys, server.bank), daemon=True, name="sweeper").start()
    # LAB END


if __name__ == "__main__":
    sys.exit(stage1_server.main(sys.argv[1:], handler=Handler, open_bank=LabBank, started=started))
