"""plumbing.py: what the Python learner's server is given, beyond stage 1. docs/learn/for-learners.md "The Python starter".

The stage 1 server (examples/python/stage1_server.py) is the base: HTTP, the strict JSON parser, the body's
validation, the bank and its refusals, problem+json, the lab clock, Lab-Delay-Ms, Lab-Crash before-money and
after-money, Lab-Fail busy, and RFC 8785 (stage1_server.canonical). This file adds what the later stages
call but do not teach, as common/ does for the C++ learner (learner/):

    PROBLEMS                      the registry, with the types of stages 2-4 added
    parse_idempotency_key(lines)  the header, as common/idempotency_key.cc reads it (400 idempotency-key-*)
    request_fingerprint(raw)      SHA-256 of the body's RFC 8785 canonical form (common/fingerprint.h)
    LabBank                       stage 1's bank, each commit counted for Lab-Crash: after-commit-N
    LabHandler                    stage 1's handler, arming after-commit-N for each request
    MONEY_PROBLEMS                the bank's refusals: outcomes a key completes with (common/bank.h)

Thread safety: as stage 1's: one lock around the one SQLite connection (Bank.lock), each request's commit
count in a thread-local.
"""
import contextlib
import hashlib
import os
import re
import sys
import threading

# stage1_server.py lives in examples/python/; PYTHONPATH, when set, is searched first (the tests run copies
# of this folder from the build tree).
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
import stage1_server  # noqa: E402
from stage1_server import PROBLEMS, Problem  # noqa: E402,F401

# ---- Problems of stages 2-4 (docs/reference/http-contract.md "Errors: problem+json") -----------------------
PROBLEMS.update({
    "idempotency-key-missing": (400, "Idempotency-Key header missing",
                                "POST /transfers and /payouts need an Idempotency-Key header (stage 2 on)"),
    "idempotency-key-empty": (400, "Idempotency-Key is empty", "the key must hold 1 to 255 printable ASCII characters"),
    "idempotency-key-list": (400, "Idempotency-Key holds a list", "the header is one sf-string, not a list"),
    "idempotency-key-parameters": (400, "Idempotency-Key carries parameters", "parameters are not allowed on the key"),
    "idempotency-key-repeated-header": (400, "Idempotency-Key sent more than once", "send exactly one header line"),
    "idempotency-key-too-long": (400, "Idempotency-Key is too long", "at most 255 characters after unquoting"),
    "idempotency-key-malformed": (400, "Idempotency-Key is not a structured-field string",
                                  'send the key as an sf-string, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324"'),
    "request-in-progress": (409, "A request with this key is in progress",
                            "the first request with this key has not finished; retry after Retry-After seconds"),
    "idempotency-key-reused": (422, "Idempotency-Key reused with another body",
                               "a key names one request; send a new key for a new request"),
})
MONEY_PROBLEMS = ("not-found", "currency-mismatch", "insufficient-funds", "balance-limit")
RETRY_AFTER_SECONDS = 1  # what a 409 or 503 tells the client to wait: a polling hint (common/http_reply.h)
MAX_KEY_LENGTH = 255     # characters after unquoting; the draft's examples are UUIDs (36)


def in_progress():
    """409 request-in-progress with Retry-After: the first request with this key still runs (stage 4)."""
    return Problem("request-in-progress", "the first request with this key is still running; retry later",
                   {"Retry-After": str(RETRY_AFTER_SECONDS)})


# ---- The Idempotency-Key header (docs/reference/http-contract.md "The Idempotency-Key header") ------------
# sf-string = DQUOTE *chr DQUOTE ; chr = %x20-21 / %x23-5B / %x5D-7E / "\" ( DQUOTE / "\" )   (RFC 8941 3.3.3)
# and, a documented leniency, a bare key: printable ASCII without space, '"', ',', ';' or '\'.
SF_STRING = re.compile(r'"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"')
BARE_KEY = re.compile(r'[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+')


def parse_idempotency_key(header_lines):
    """The key of a request from its Idempotency-Key header lines (a list; None or [] when absent), or a
    Problem raised: 400 with one of the seven idempotency-key-* types."""
    if not header_lines:
        raise Problem("idempotency-key-missing", "send an Idempotency-Key header with a unique key")
    if len(header_lines) > 1:
        raise Problem("idempotency-key-repeated-header", f"Idempotency-Key was sent {len(header_lines)} times")
    value = header_lines[0].strip(" \t")
    if not value:
        raise Problem("idempotency-key-empty", "the header is empty")
    match = SF_STRING.match(value) if value.startswith('"') else BARE_KEY.match(value)
    if not match:
        raise Problem("idempotency-key-malformed", "not an sf-string of printable ASCII (only \\\" and \\\\ escapes)")
    key = re.sub(r'\\(["\\])', r"\1", match[1]) if value.startswith('"') else match[0]
    rest = value[match.end():].lstrip(" ")
    if rest.startswith(","):
        raise Problem("idempotency-key-list", "the header holds a list; send exactly one key")
    if rest.startswith(";"):
        raise Problem("idempotency-key-parameters", "parameters are not allowed after the key")
    if rest:
        raise Problem("idempotency-key-malformed", f"unexpected characters after the key: {rest[:20]}")
    if not key:
        raise Problem("idempotency-key-empty", "the key is empty")
    if len(key) > MAX_KEY_LENGTH:
        raise Problem("idempotency-key-too-long", f"the key has {len(key)} characters, at most {MAX_KEY_LENGTH}")
    return key


def request_fingerprint(raw):
    """SHA-256 (hex) of the request body's RFC 8785 canonical form: every spelling of one request, one hash.
    Called on a body already validated, so it parses."""
    return hashlib.sha256(stage1_server.canonical(stage1_server.parse_json_strictly(raw)).encode()).hexdigest()


# ---- Lab-Crash: after-commit-N (docs/reference/lab-controls.md "Lab controls") -----------------------------
# Each request's thread counts its own commits; the sweeper's thread never arms a crash.
this_request = threading.local()  # .crash_after_commit: N or None; .commits: how many so far


class LabBank(stage1_server.Bank):
    """Stage 1's bank, whose every committed transaction counts for Lab-Crash: after-commit-N."""

    @contextlib.contextmanager
    def transaction(self):
        with super().transaction() as db:
            yield db
        # Committed (an exception would have rolled back and left above): the N-th commit of an armed request
        # ends the process right here, before anything else happens.
        this_request.commits = getattr(this_request, "commits", 0) + 1
        if this_request.commits == getattr(this_request, "crash_after_commit", None):
            point = f"after-commit-{this_request.commits}"
            sys.stderr.write(f"lab: Lab-Crash: {point}: the process ends now (exit {stage1_server.CRASH_EXIT_CODE})\n")
            sys.stderr.flush()
            os._exit(stage1_server.CRASH_EXIT_CODE)


class LabHandler(stage1_server.Handler):
    """Stage 1's handler, with Lab-Crash: after-commit-N armed per request (1 to 9)."""

    def serve(self, method):
        crash = re.fullmatch(r"after-commit-([1-9])", self.lab_header("Lab-Crash"))
        this_request.crash_after_commit, this_request.commits = (int(crash[1]) if crash else None), 0
        try:
            super().serve(method)
        finally:
            this_request.crash_after_commit = None
