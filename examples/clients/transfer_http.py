"""transfer_http.py: what the two reference clients share, so that they differ only in the lesson. docs/learn/the-clients-side.md "The client's side".

    from transfer_http import add_intent_arguments, parse_command_line, send_transfer, NoAnswer

  - Intent: one transfer the application means, with its name (an order number, an invoice: the thing the
    application knows it wants once) and the exact body it sends for it.
  - send_transfer(): one POST /transfers with a given key; returns an Answer, or raises NoAnswer when no
    response came (refused, reset, timed out: the money may or may not have moved).
  - read_policy(): GET /idempotency-policy, the retention the server publishes (stage 6).
  - retry_after_seconds(): the Retry-After of a 409 or 503, in seconds.
  - add_intent_arguments() and parse_command_line(): the options both clients take (the server, the token,
    the intents, --timeout, --verbose, the test hook), read and checked once.
  - send_log(): the --verbose line per send, with the time it was answered.
  - LabFaults: a TEST HOOK. `--lab-fault "pay-3#1 Lab-Delay-Ms: 3000"` attaches a lab control header
    (docs/reference/lab-controls.md "Lab controls") to the first send of intent pay-3, so that the tests
    (tests/clients/check_clients.py) can drop responses, make a first attempt outlast the client's timeout,
    or crash the server, each on a chosen attempt. A real client has no such option.

Standard library only (http.client, json, urllib.parse): the lesson is what the client does, not a library.
"""
import http.client
import json
import re
import sys
import time
import urllib.parse
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Intent:
    name: str     # the application's own name for what it means to do once: "pay-3", "invoice-2026-0042"
    body: dict    # the POST /transfers body; every send of this intent sends exactly these bytes


@dataclass
class Answer:
    status: int
    headers: dict           # lower-cased names
    body: object            # the parsed JSON, or None
    replayed: bool = False  # Idempotent-Replayed: true, the answer to an earlier send with this key

    def problem_type(self):
        """The problem's slug ("request-in-progress"), or "" for a success or a body that is no problem."""
        if isinstance(self.body, dict) and isinstance(self.body.get("type"), str):
            return self.body["type"].rsplit("/", 1)[-1]
        return ""


class NoAnswer(Exception):
    """No response: the connection was refused or reset, or the answer did not come within the timeout.
    The request may have moved the money or not; only the same key can tell (the-clients-side.md)."""


def transfer_body(name, from_account, to_account, amount, currency):
    """The body of intent `name`. The name goes into memo and metadata so that a person (or a look-up by the
    bank's staff) can find the transfer later without the key: "After giving up"."""
    return {"from_account": from_account, "to_account": to_account, "amount": amount, "currency": currency,
            "memo": name, "metadata": {"intent": name}}


def encoded(body):
    """The bytes of a body, always the same for the same body (sorted members, no spaces)."""
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _exchange(url, method, path, token, body_bytes=None, headers=None, timeout_s=10.0):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout_s)
    all_headers = {"Authorization": f"Bearer {token}", **(headers or {})}
    if body_bytes is not None:
        all_headers["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=body_bytes, headers=all_headers)
        response = connection.getresponse()
        raw = response.read()
        got_headers = {name.lower(): value for name, value in response.getheaders()}
        status = response.status
    except (OSError, http.client.HTTPException) as error:   # refused, reset, timed out, cut short
        raise NoAnswer(type(error).__name__ + (f": {error}" if str(error) else "")) from None
    finally:
        connection.close()
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = None
    return Answer(status, got_headers, parsed, got_headers.get("idempotent-replayed") == "true")


def send_transfer(url, token, key, body_bytes, timeout_s, extra_headers=None):
    """POST /transfers with Idempotency-Key `key` (an sf-string, quoted): an Answer, or raises NoAnswer."""
    headers = {"Idempotency-Key": f'"{key}"', **(extra_headers or {})}
    return _exchange(url, "POST", "/transfers", token, body_bytes, headers, timeout_s)


def read_policy(url, token, timeout_s=10.0):
    """GET /idempotency-policy as a dict (stage 6 publishes key_ttl_seconds there), or None when the
    server publishes none (stages 1-5): then the client cannot know how long its keys are kept. Raises
    NoAnswer when the server does not answer."""
    answer = _exchange(url, "GET", "/idempotency-policy", token, timeout_s=timeout_s)
    return answer.body if answer.status == 200 and isinstance(answer.body, dict) else None


def retry_after_seconds(answer):
    """Retry-After in seconds (RFC 9110 allows a date too; the lab's servers send seconds), or None."""
    value = answer.headers.get("retry-after", "").strip()
    return float(value) if value.isdigit() else None


def send_log(verbose):
    """--verbose: a function that prints one line per send on stderr, with the seconds since the start at its
    end ("pay-4 send 2 (key ...): 201  [1.532 s]"), so that a reader (or a test) sees how long each wait was."""
    started = time.monotonic()

    def log(line):
        if verbose:
            print(f"{line}  [{time.monotonic() - started:.3f} s]", file=sys.stderr, flush=True)
    return log


# ---- The intents on the command line -------------------------------------------------------------------

def add_intent_arguments(parser):
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="the server (default %(default)s)")
    parser.add_argument("--token", required=False, help="the client's bearer token (POST /admin/clients)")
    parser.add_argument("--intents", type=int, default=0, metavar="N", help="N transfers, named NAME-1..NAME-N")
    parser.add_argument("--name", default="pay", help="the intents' name prefix (default %(default)s)")
    parser.add_argument("--from", dest="from_account", type=int, metavar="A", help="source account id")
    parser.add_argument("--to", dest="to_account", type=int, metavar="B", help="target account id")
    parser.add_argument("--amount", type=int, default=100, help="minor units (cents), default %(default)s")
    parser.add_argument("--currency", default="USD", help="default %(default)s")
    parser.add_argument("--intents-file", metavar="FILE",
                        help='a JSON list instead: [{"intent": "rent-12", "from_account": 1, "to_account": 2, '
                             '"amount": 1500, "currency": "USD"}, ...]')
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S",
                        help="seconds to wait for one answer (default %(default)s)")
    parser.add_argument("--lab-fault", action="append", default=[], metavar='"NAME#SEND HEADER: VALUE"',
                        help='TEST HOOK, for servers started with --lab-controls: add a lab control header to '
                             'the SEND-th send (counted from 1 in this process) of intent NAME, e.g. '
                             '"pay-3#1 Lab-Delay-Ms: 3000"; "pay-3#2 rebuild-body" changes the memo of that '
                             'send (the client bug a 422 catches). Repeatable.')


def parse_command_line(parser):
    """The command line both clients share, once each has added its own options to `parser`: returns
    (args, faults, intents, log). A bad one exits through the parser (status 2) with what is wrong."""
    parser.add_argument("--verbose", action="store_true", help="one line per send on stderr")
    args = parser.parse_args()
    if not args.token:
        parser.error("--token is required")
    try:
        faults = LabFaults.parse(args.lab_fault)
    except ValueError as error:
        parser.error(str(error))
    return args, faults, intents_from_arguments(parser, args), send_log(args.verbose)


def intents_from_arguments(parser, args):
    """The intents the command line names, in order; exits through the parser on a bad combination."""
    if args.intents_file:
        try:
            with open(args.intents_file, encoding="utf-8") as file:
                items = json.load(file)
            return [Intent(item["intent"], transfer_body(item["intent"], item["from_account"], item["to_account"],
                                                         item["amount"], item.get("currency", "USD")))
                    for item in items]
        except (OSError, ValueError, KeyError, TypeError) as error:
            parser.error(f"--intents-file {args.intents_file}: {error!r} (expected a JSON list of "
                         '{"intent", "from_account", "to_account", "amount"[, "currency"]})')
    if args.intents and (args.from_account is None or args.to_account is None):
        parser.error("--intents needs --from and --to")
    return [Intent(f"{args.name}-{n}", transfer_body(f"{args.name}-{n}", args.from_account, args.to_account,
                                                     args.amount, args.currency))
            for n in range(1, args.intents + 1)]


# ---- TEST HOOK: lab faults on chosen sends --------------------------------------------------------------

@dataclass
class LabFaults:
    """Which sends carry a lab control header (or rebuild their body). Only for tests: without
    --lab-fault a client sends exactly what it means."""
    headers: dict = field(default_factory=dict)         # (intent name, send number) -> {header: value}
    rebuilt_bodies: set = field(default_factory=set)    # (intent name, send number)

    @staticmethod
    def parse(specs):
        faults = LabFaults()
        for spec in specs:
            match = re.fullmatch(r"\s*([^#\s]+)#(\d+)\s+(?:(rebuild-body)|([\w-]+):\s*(.*?))\s*", spec)
            if not match:
                raise ValueError(f'--lab-fault "{spec}": expected "NAME#SEND HEADER: VALUE" or "NAME#SEND rebuild-body"')
            where = (match.group(1), int(match.group(2)))
            if match.group(3):
                faults.rebuilt_bodies.add(where)
            else:
                faults.headers.setdefault(where, {})[match.group(4)] = match.group(5)
        return faults

    def headers_for(self, name, send):
        return self.headers.get((name, send), {})

    def body_for(self, name, send, body_bytes):
        """The bytes this send carries: the intent's own, unless the test asks for the bug of rebuilding the
        body on a retry (a fresh timestamp in the memo, say), which the server answers 422."""
        if (name, send) not in self.rebuilt_bodies:
            return body_bytes
        body = json.loads(body_bytes)
        return encoded({**body, "memo": f"{body.get('memo', '')} (rebuilt on send {send})"})
