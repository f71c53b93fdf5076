#!/usr/bin/env python3
"""stage1_server.py: a complete stage 1 server for the Idempotency Key Lab, in one file. docs/learn/for-learners.md "For learners".

It speaks the whole contract (docs/reference/http-contract.md "The HTTP contract", openapi.yaml) and the lab controls, and it is naive
on purpose, like stages/1_naive: every valid request moves money, so a retried transfer is a second transfer.
It passes `grader --stage 1` and fails stage 2. Copy it as the start of your own server.

    python3 examples/python/stage1_server.py --port 8080 --db /tmp/s1.db --admin-token secret --lab-controls
    build/grader/grader --stage 1 --server "python3 examples/python/stage1_server.py --port {port} --db {db} \
        --admin-token {admin_token} --lab-controls --quiet"

Standard library only: http.server serves, sqlite3 stores, json parses, hashlib and secrets make tokens.
The file reads top to bottom: limits, problems, the strict JSON parser, the request's validation, the bank
(SQLite), the HTTP handler (routes and lab controls), main().
"""
import argparse, contextlib, decimal, hashlib, hmac, json, math, os, re, secrets, signal, sqlite3, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

# ---- Limits (docs/reference/http-contract.md "Client endpoints (client token)", docs/reference/lab-controls.md "Lab controls") --------------------------------------------------
MAX_MINOR_UNITS = 2**53 - 1         # amounts and balances, in cents: JavaScript clients read them exactly
MAX_BODY_BYTES = 16 * 1024          # 413 above this; a transfer body is about 150 bytes
HARD_BODY_LIMIT = 1024 * 1024       # above this the body is not even read: 413 before the token is looked at
MAX_JSON_DEPTH = 64                 # nesting of arrays and objects; a real body has 2 or 3 levels
MAX_MEMO_BYTES, MAX_DESTINATION_BYTES = 200, 64
MAX_METADATA_KEYS, MAX_METADATA_KEY_CHARS, MAX_METADATA_DEPTH, MAX_METADATA_BYTES = 20, 40, 3, 2048
MAX_LAB_DELAY_MS = 10_000           # Lab-Delay-Ms is capped, so a typo cannot hold a thread for hours
CRASH_EXIT_CODE = 86                # what Lab-Crash exits with
LEDGER_PAGE_DEFAULT, LEDGER_PAGE_MAX = 100, 1000
LISTEN_BACKLOG = 1024               # connections the kernel queues before accept(); socketserver's default is 5

# ---- Problems (docs/reference/http-contract.md "Errors: problem+json") ------------------------------------------------------------
# The types this server answers with: slug -> (status, title, meaning). Stage 2 adds the seven
# idempotency-key-* types, stage 3 idempotency-key-reused, stage 4 request-in-progress.
PROBLEMS = {
    "unauthorized": (401, "Missing or unknown bearer token", "send Authorization: Bearer <token>"),
    "unsupported-media-type": (415, "Body is not JSON", "send Content-Type: application/json"),
    "body-too-large": (413, "Body too large", "request bodies are limited to 16 KiB"),
    "json-syntax": (400, "Body is not valid JSON", "fix the JSON syntax"),
    "json-duplicate-member": (400, "Duplicate member name in body", "a member name appears twice in one object"),
    "json-invalid-utf8": (400, "Body is not valid UTF-8", "JSON text must be UTF-8"),
    "json-lone-surrogate": (400, "Lone surrogate in a string", "a \\uD800-\\uDFFF escape without its pair"),
    "json-number-out-of-range": (400, "Number outside double range", "numbers must fit an IEEE-754 double"),
    "json-too-deep": (400, "Body nested too deeply", "nesting deeper than 64"),
    "invalid-field": (400, "Invalid request fields", "the errors member lists each field and its fault"),
    "not-found": (404, "No such account", "the account does not exist or is not yours (not told apart)"),
    "currency-mismatch": (400, "Currency does not match the accounts", "both accounts must hold the currency"),
    "insufficient-funds": (402, "Insufficient funds", "the source account holds less than the amount"),
    "balance-limit": (422, "Balance would pass the maximum", "the target account would pass 2^53 - 1; nothing moved"),
    "route-not-found": (404, "No such route", "see openapi.yaml for the routes"),
    "lab-controls-disabled": (403, "Lab controls are off", "start the server with --lab-controls"),
    "service-unavailable": (503, "Temporarily unavailable", "the database was busy; retry"),
    "internal-error": (500, "Internal error", "a bug in the server"),
}


class Problem(Exception):
    """An error answer. Raised anywhere in a handler; Handler.serve writes it once, as problem+json."""

    def __init__(self, slug, detail, headers=None, **extra):
        super().__init__(detail)
        self.status, self.title, _ = PROBLEMS[slug]
        self.slug, self.detail, self.headers, self.extra = slug, detail, headers or {}, extra

    def body(self):
        return {"type": "/problems/" + self.slug, "title": self.title, "status": self.status,
                "detail": self.detail, **self.extra}


def invalid_fields(errors):
    """400 invalid-field listing every (field, reason), so the client fixes its body in one round trip."""
    field, reason = errors[0]
    return Problem("invalid-field", f"{field}: {reason}", errors=[{"field": f, "reason": r} for f, r in errors])


# ---- Strict JSON (docs/reference/http-contract.md "Client endpoints (client token)", the body rules) ---------------------------------------------
def parse_json_strictly(raw):
    """One JSON document, refused where RFC 8785 refuses it. Python's json module is lenient in five ways
    the contract is not; each hook below closes one, with the problem type the contract names."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Problem("json-invalid-utf8", f"byte {e.start} of the body is not UTF-8")

    def number(spelling):  # every JSON number is an IEEE-754 double (RFC 8785): 1e400 is not one
        value = float(spelling)
        if math.isinf(value):
            raise Problem("json-number-out-of-range", f"{spelling[:24]} does not fit a double")
        return value

    def integer(spelling):  # kept exact as an int, but it must fit a double too
        number(spelling)
        return int(spelling)

    def object_without_duplicates(pairs):  # json keeps the last of two equal names; the contract refuses both
        obj = {}
        for name, value in pairs:
            if name in obj:
                raise Problem("json-duplicate-member", f'duplicate member name "{name}"')
            obj[name] = value
        return obj

    def no_constant(name):  # json accepts NaN, Infinity and -Infinity; JSON has no such values
        raise Problem("json-syntax", f"{name} is not JSON")

    try:
        document = json.loads(text, parse_float=number, parse_int=integer, parse_constant=no_constant,
                              object_pairs_hook=object_without_duplicates)
    except json.JSONDecodeError as e:
        raise Problem("json-syntax", f"{e.msg} at character {e.pos}")
    except RecursionError:  # thousands of [[[[: Python's own recursion limit ends the parse
        raise Problem("json-too-deep", f"nesting deeper than {MAX_JSON_DEPTH}")
    # json turns "\ud800" into a str it cannot encode, and has no depth limit: look at the whole document.
    stack = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise Problem("json-lone-surrogate", "a \\uD800-\\uDFFF escape without its pair")
        elif isinstance(value, (dict, list)):
            if depth == MAX_JSON_DEPTH:
                raise Problem("json-too-deep", f"nesting deeper than {MAX_JSON_DEPTH}")
            children = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)
    return document


def json_object(content_type, raw):
    """The body of any POST, in the contract's order: application/json (415), at most 16 KiB (413),
    strict JSON (400 json-*), an object (400 invalid-field)."""
    if content_type.split(";")[0].strip().lower() != "application/json":  # "; charset=utf-8" is fine
        raise Problem("unsupported-media-type", f'Content-Type is "{content_type}", expected application/json')
    if len(raw) > MAX_BODY_BYTES:
        raise Problem("body-too-large", f"body has {len(raw)} bytes, the limit is {MAX_BODY_BYTES}")
    document = parse_json_strictly(raw)
    if not isinstance(document, dict):
        raise invalid_fields([("(body)", "must be a JSON object")])
    return document


def canonical(value):
    """The RFC 8785 canonical form of a parsed JSON value: one spelling per value (docs/reference/fingerprint.md
    "Stage 3: the canonical fingerprint (the long version)"; build/tools/canon prints the same). Members are
    sorted by UTF-16 code units, not by code points as sort_keys does; numbers are written as ECMAScript
    writes doubles (canonical_number); strings keep every character raw but the escapes JSON cannot do without,
    which is what json.dumps(..., ensure_ascii=False) writes."""
    if isinstance(value, dict):
        members = sorted(value.items(), key=lambda member: member[0].encode("utf-16-be"))
        return "{" + ",".join(canonical(name) + ":" + canonical(item) for name, item in members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(canonical, value)) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return canonical_number(float(value))  # every JSON number is a double, integers too (1500 and 1.5e3 alike)


def canonical_number(value):
    """ECMAScript's Number::toString (RFC 8785 section 3.2.2.3): the shortest digits that read back as the same
    double (Python's repr finds them), placed as plain digits from 1e-6 up to 1e21, in e-notation outside."""
    if value == 0:
        return "0"  # -0 too
    if value < 0:
        return "-" + canonical_number(-value)
    _, digit_tuple, exponent = decimal.Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    exponent += len("".join(map(str, digit_tuple))) - len(digits)
    k, n = len(digits), len(digits) + exponent  # value = 0.<digits> * 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{mantissa}e{'+' if n - 1 > 0 else '-'}{abs(n - 1)}"


def nesting(value):
    """Levels of objects and arrays: 0 for a scalar, 1 for {} or [1], 2 for {"a": [1]}."""
    if isinstance(value, dict):
        value = list(value.values())
    return 1 + max(map(nesting, value), default=0) if isinstance(value, list) else 0


def metadata_faults(metadata):
    """What is wrong with a request's metadata, as a list of reasons (empty: nothing)."""
    if not isinstance(metadata, dict):
        return ["must be a JSON object of string keys"]
    faults = []
    if len(metadata) > MAX_METADATA_KEYS:
        faults.append(f"has {len(metadata)} keys, at most {MAX_METADATA_KEYS} are allowed")
    for key, value in metadata.items():  # len() of a str counts code points, as the contract does
        if not 1 <= len(key) <= MAX_METADATA_KEY_CHARS:
            faults.append(f"key {json.dumps(key)} must have 1 to {MAX_METADATA_KEY_CHARS} characters")
        if 1 + nesting(value) > MAX_METADATA_DEPTH:  # the metadata object itself is level 1
            faults.append(f"the value of key {json.dumps(key)} nests deeper than {MAX_METADATA_DEPTH} levels")
    if len(canonical(metadata).encode()) > MAX_METADATA_BYTES:
        faults.append(f"is over {MAX_METADATA_BYTES} bytes in canonical form")
    return faults


# ---- The money request (docs/reference/http-contract.md "Client endpoints (client token)", common/money_request.cc) ------------------------------
KINDS = {"/transfers": "transfer", "/payouts": "payout"}  # the route and the ledger's word for its entries
FIELDS = {"transfer": {"from_account", "to_account", "amount", "currency", "memo", "metadata"},
          "payout": {"from_account", "destination", "amount", "currency", "memo", "metadata"}}


def positive_integer(body, field, errors):
    """1 to 2^53 - 1 in any spelling of an integer (1500, 1500.0, 1.5e3), decided on the parsed value."""
    value = body.get(field)
    if field not in body:
        errors.append((field, "is required"))
    elif isinstance(value, bool) or not isinstance(value, (int, float)) or value != math.trunc(value):
        errors.append((field, "must be a number with an integral value (1500, 1500.0 or 1.5e3)"))
    elif value > MAX_MINOR_UNITS:
        errors.append((field, "must be at most 2^53 - 1"))
    elif value < 1:  # 0, 0.0 and -0 alike
        errors.append((field, "must be positive"))
    else:
        return int(value)
    return None


def text(body, field, required, max_bytes, errors):
    """A string of at most max_bytes UTF-8 bytes; "" when it is optional and absent."""
    if field not in body:
        if required:
            errors.append((field, "is required"))
        return None if required else ""
    if not isinstance(body[field], str):
        errors.append((field, "must be a string"))
    elif len(body[field].encode()) > max_bytes:
        errors.append((field, f"must be at most {max_bytes} bytes"))
    else:
        return body[field]
    return None


def parse_money_request(kind, content_type, raw):
    """The body of POST /transfers or /payouts, validated (415, 413, 400), or a Problem raised.
    Validation never reads the database: whether an account exists is the bank's question (404)."""
    body = json_object(content_type, raw)
    errors = [(name, "is not a known field") for name in body if name not in FIELDS[kind]]
    request = {"kind": kind, "from_account": positive_integer(body, "from_account", errors),
               "amount": positive_integer(body, "amount", errors),
               "currency": text(body, "currency", True, 3, errors),
               "memo": text(body, "memo", False, MAX_MEMO_BYTES, errors), "metadata": None}
    if request["currency"] is not None and not re.fullmatch("[A-Z]{3}", request["currency"]):
        errors.append(("currency", 'must be three upper-case letters, e.g. "USD"'))
    if kind == "transfer":
        request["to_account"] = positive_integer(body, "to_account", errors)
        if request["to_account"] is not None and request["to_account"] == request["from_account"]:
            errors.append(("to_account", "must differ from from_account"))
    else:
        request["destination"] = text(body, "destination", True, MAX_DESTINATION_BYTES, errors)
        if request["destination"] == "":
            errors.append(("destination", "must not be empty"))
    if "metadata" in body:
        errors += [("metadata", fault) for fault in metadata_faults(body["metadata"])]
        # Stored in one spelling, so the ledger does not depend on how the client wrote it.
        request["metadata"] = canonical(body["metadata"])
    if errors:
        raise invalid_fields(errors)
    return request


# ---- The bank (docs/reference/the-bank.md "The bank"; the same schema as common/bank.cc) ------------------------------------
SCHEMA = """
CREATE TABLE IF NOT EXISTS clients (id INTEGER PRIMARY KEY, name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL REFERENCES clients(id),
  currency TEXT NOT NULL, opening_balance INTEGER NOT NULL, balance INTEGER NOT NULL CHECK (balance >= 0),
  created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('transfer', 'payout')), from_account INTEGER NOT NULL REFERENCES accounts(id),
  to_account INTEGER REFERENCES accounts(id), destination TEXT, amount INTEGER NOT NULL CHECK (amount > 0),
  currency TEXT NOT NULL, memo TEXT NOT NULL, metadata TEXT, from_balance_after INTEGER NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lab_clock (id INTEGER PRIMARY KEY CHECK (id = 1), offset_ms INTEGER NOT NULL);
INSERT OR IGNORE INTO lab_clock (id, offset_ms) VALUES (1, 0);
"""
ACCOUNT = "SELECT id, client_id, balance, currency FROM accounts WHERE id = ?"


def sha256_hex(token):
    return hashlib.sha256(token.encode()).hexdigest()


def entry_json(row):
    """A ledger row as the contract writes it: to_account for a transfer, destination for a payout,
    metadata only when the request had it."""
    entry = {"id": row["id"], "kind": row["kind"], "from_account": row["from_account"]}
    if row["kind"] == "transfer":
        entry["to_account"] = row["to_account"]
    else:
        entry["destination"] = row["destination"]
    entry.update(amount=row["amount"], currency=row["currency"], memo=row["memo"])
    if row["metadata"] is not None:
        entry["metadata"] = json.loads(row["metadata"])
    entry["created_at"] = row["created_at"]
    return entry


class Bank:
    """Clients, accounts, the ledger and the lab clock, in one SQLite file.

    One connection serves every thread, and `lock` guards it: a sqlite3 connection must not be used by two
    threads at once, and one lock around each whole transaction is the simplest rule that is right. It is a
    convenience of this one process, not what makes a later stage correct (docs/reference/plumbing.md "SQLite", the write lock)."""

    def __init__(self, path):
        self.lock = threading.Lock()  # guards self.db, for each whole transaction or query
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)  # we BEGIN ourselves
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # a commit survives a crash of the process (Lab-Crash)
        self.db.execute("PRAGMA busy_timeout=5000")   # ms another process may hold the file before "busy"
        self.db.executescript(SCHEMA)
        self.clock_offset_ms = self.query("SELECT offset_ms FROM lab_clock")[0][0]

    @contextlib.contextmanager
    def transaction(self):
        """BEGIN IMMEDIATE (the write lock at once, never an upgrade later), then COMMIT, or ROLLBACK on error."""
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def query(self, sql, *args):
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def now_ms(self):
        """The lab clock: real time plus the offset POST /admin/clock added (stored, so it survives a crash)."""
        return int(time.time() * 1000) + self.clock_offset_ms

    def advance_clock(self, ms):
        with self.transaction() as db:
            db.execute("UPDATE lab_clock SET offset_ms = offset_ms + ?", (ms,))
            self.clock_offset_ms = db.execute("SELECT offset_ms FROM lab_clock").fetchone()[0]
        return self.now_ms()

    def create_client(self, name):
        token = "tok_" + secrets.token_hex(32)  # 256 random bits: guessing a token is hopeless
        with self.transaction() as db:
            client_id = db.execute("INSERT INTO clients (name, token_sha256, created_at) VALUES (?, ?, ?)",
                                   (name, sha256_hex(token), self.now_ms())).lastrowid
        return {"id": client_id, "name": name, "token": token}  # the only time the token is shown

    def authenticate(self, token):
        """The client id of a bearer token, or None. Only its SHA-256 is stored: a leaked file leaks no token."""
        row = self.query("SELECT id FROM clients WHERE token_sha256 = ?", sha256_hex(token))
        return row[0]["id"] if row else None

    def create_account(self, client_id, balance, currency):
        with self.transaction() as db:
            if not db.execute("SELECT 1 FROM clients WHERE id = ?", (client_id,)).fetchone():
                raise invalid_fields([("client_id", "no such client")])
            account_id = db.execute("INSERT INTO accounts (client_id, currency, opening_balance, balance, "
                                    "created_at) VALUES (?, ?, ?, ?, ?)",
                                    (client_id, currency, balance, balance, self.now_ms())).lastrowid
        return {"id": account_id, "client_id": client_id, "balance": balance, "currency": currency}

    def ledger_page(self, after, limit):
        """Entries after the id `after`, and "next": the `after` of the next page, or None on the last one."""
        rows = self.query("SELECT * FROM ledger WHERE id > ? ORDER BY id LIMIT ?", after, limit + 1)
        more = len(rows) > limit  # the one row more than asked says whether another page follows
        return {"entries": [entry_json(r) for r in rows[:limit]], "next": rows[limit - 1]["id"] if more else None}

    def move_money(self, client_id, r, busy=False):
        """One write transaction: the bank's checks in the contract's order (404, 400 currency-mismatch, 402,
        422 balance-limit),
        then the debit, the credit and the ledger row. Returns the 201 body."""
        with self.transaction() as db:
            return self.move_money_in(db, client_id, r, busy)

    def move_money_in(self, db, client_id, r, busy=False):
        """move_money inside a transaction the caller holds, so that a later stage commits its key with the
        money (learner-python/server.py). Every check comes before the first write: a refusal writes nothing."""
        if busy:  # Lab-Fail: busy: fail here, inside the money's transaction, as a busy SQLite would
            raise Problem("service-unavailable", "Lab-Fail: busy: the database is busy", {"Retry-After": "1"})
        source = db.execute(ACCOUNT, (r["from_account"],)).fetchone()
        if not source or source["client_id"] != client_id:  # someone else's account looks like a missing one
            raise Problem("not-found", f"no account {r['from_account']}")
        target = None
        if r["kind"] == "transfer":
            target = db.execute(ACCOUNT, (r["to_account"],)).fetchone()
            if not target:
                raise Problem("not-found", f"no account {r['to_account']}")
        if source["currency"] != r["currency"] or (target and target["currency"] != r["currency"]):
            raise Problem("currency-mismatch", f"the request is in {r['currency']}, "
                          f"account {source['id']} holds {source['currency']}")
        if source["balance"] < r["amount"]:
            raise Problem("insufficient-funds",
                          f"account {source['id']} holds {source['balance']}, the amount is {r['amount']}")
        if target and target["balance"] > MAX_MINOR_UNITS - r["amount"]:  # the target may be someone else's:
            raise Problem("balance-limit",                                # name neither balance nor owner
                          f"account {target['id']} cannot receive {r['amount']}: its balance would pass 2^53 - 1")
        db.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (r["amount"], source["id"]))
        if target:
            db.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (r["amount"], target["id"]))
        row_id = db.execute(
            "INSERT INTO ledger (kind, from_account, to_account, destination, amount, currency, memo, "
            "metadata, from_balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (r["kind"], source["id"], r.get("to_account"), r.get("destination"), r["amount"], r["currency"],
             r["memo"], r["metadata"], source["balance"] - r["amount"], self.now_ms())).lastrowid
        row = db.execute("SELECT * FROM ledger WHERE id = ?", (row_id,)).fetchone()
        return {**entry_json(row), "from_balance_after": row["from_balance_after"]}


# ---- HTTP (docs/reference/http-contract.md "The HTTP contract"; the pitfalls: docs/learn/for-learners.md "For learners") -----------------------------
def rendered(status, body):
    """An answer's Content-Type and bytes, exactly as serve() writes them."""
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    return ("application/problem+json" if status >= 400 else "application/json"), data


def whole(value, low, high):
    """A JSON integer (not a bool, not 1.0) from low to high: the admin endpoints' numbers."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


class Handler(BaseHTTPRequestHandler):
    """One connection, served on its own thread; its requests one after another (keep-alive)."""
    protocol_version = "HTTP/1.1"   # keep-alive: a connection carries many requests (each answer has a length)
    disable_nagle_algorithm = True  # TCP_NODELAY: no 40 ms wait between the headers' packet and the body's

    def route(self, method, path, query, raw):
        """The routes. Each handler returns (status, body) or raises a Problem."""
        account = re.fullmatch(r"/accounts/(\d{1,16})", path)
        if (method, path) == ("GET", "/healthz"):
            return 200, {"status": "ok"}
        if (method, path) == ("GET", "/problems"):
            return 200, {"problem_types": [{"type": "/problems/" + slug, "status": s, "title": t, "meaning": m}
                                           for slug, (s, t, m) in PROBLEMS.items()]}
        if (method, path) == ("POST", "/admin/clients"):
            return self.create_client(raw)
        if (method, path) == ("POST", "/admin/accounts"):
            return self.create_account(raw)
        if (method, path) == ("GET", "/admin/ledger"):
            return self.ledger_page(query)
        if (method, path) == ("POST", "/admin/clock"):
            return self.advance_clock(raw)
        if method == "GET" and account:
            return self.get_account(int(account[1]))
        if method == "POST" and path in KINDS:
            return self.move_money(KINDS[path], raw)
        raise Problem("route-not-found", f"no route {method} {path}")

    # -- Who is asking (docs/reference/http-contract.md "Authentication"): before anything else is looked at.
    def bearer_token(self):
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        return token if scheme.lower() == "bearer" and token else ""  # the scheme is case-insensitive

    def authenticate(self):
        """The caller's client id, or 401."""
        token = self.bearer_token()
        client_id = token and self.server.bank.authenticate(token)
        if not client_id:
            raise Problem("unauthorized", "send Authorization: Bearer <client token>", {"WWW-Authenticate": "Bearer"})
        return client_id

    def authorize_admin(self):
        # compare_digest takes as long for a near miss as for a wild guess: the time reveals nothing.
        if not hmac.compare_digest(self.bearer_token().encode(), self.server.admin_token.encode()):
            raise Problem("unauthorized", "send Authorization: Bearer <admin token>", {"WWW-Authenticate": "Bearer"})

    # -- The admin endpoints (docs/reference/http-contract.md "Admin endpoints (admin token)").
    def create_client(self, raw):
        self.authorize_admin()
        name = json_object(self.content_type(), raw).get("name")
        if not isinstance(name, str) or not 1 <= len(name.encode()) <= 100:
            raise invalid_fields([("name", "must be a string of 1 to 100 bytes")])
        return 201, self.server.bank.create_client(name)

    def create_account(self, raw):
        self.authorize_admin()
        b = json_object(self.content_type(), raw)
        if not whole(b.get("client_id"), 1, MAX_MINOR_UNITS):
            raise invalid_fields([("client_id", "must be a client id")])
        if not whole(b.get("balance"), 0, MAX_MINOR_UNITS):
            raise invalid_fields([("balance", "must be an integer from 0 to 2^53 - 1 (minor units)")])
        if not isinstance(b.get("currency"), str) or not re.fullmatch("[A-Z]{3}", b["currency"]):
            raise invalid_fields([("currency", 'must be three upper-case letters, e.g. "USD"')])
        return 201, self.server.bank.create_account(b["client_id"], b["balance"], b["currency"])

    def ledger_page(self, query):
        self.authorize_admin()
        params = {name: values[-1] for name, values in parse_qs(query, keep_blank_values=True).items()}
        after, limit = params.get("after", "0"), params.get("limit", str(LEDGER_PAGE_DEFAULT))
        if not (re.fullmatch(r"\d{1,18}", after) and re.fullmatch(r"\d{1,4}", limit)
                and 1 <= int(limit) <= LEDGER_PAGE_MAX):
            raise invalid_fields([("after/limit", "after >= 0, 1 <= limit <= 1000")])
        return 200, self.server.bank.ledger_page(int(after), int(limit))

    def advance_clock(self, raw):
        self.authorize_admin()
        if not self.server.lab_controls:
            raise Problem("lab-controls-disabled", "start the server with --lab-controls")
        advance = json_object(self.content_type(), raw).get("advance_ms")
        if not whole(advance, 0, MAX_MINOR_UNITS):
            raise invalid_fields([("advance_ms", "must be a non-negative integer (milliseconds)")])
        return 200, {"now_ms": self.server.bank.advance_clock(advance)}

    # -- The client endpoints (docs/reference/http-contract.md "Client endpoints (client token)").
    def get_account(self, account_id):
        client_id = self.authenticate()
        row = self.server.bank.query(ACCOUNT, account_id)
        if not row or row[0]["client_id"] != client_id:  # someone else's account looks like a missing one
            raise Problem("not-found", f"no account {account_id}")
        return 200, dict(row[0])

    def move_money(self, kind, raw):
        """POST /transfers and POST /payouts: the stage 1 handler (stages/1_naive/money_handler.cc)."""
        client_id = self.authenticate()                                   # Who is asking? (401)
        request = parse_money_request(kind, self.content_type(), raw)    # Is the body valid? (415, 413, 400)

        delay = self.lab_header("Lab-Delay-Ms")
        if delay.isascii() and delay.isdigit():
            time.sleep(min(int(delay), MAX_LAB_DELAY_MS) / 1000)
        self.crash_if_asked("before-money")

        # Move the money. Nothing asks whether this very request was executed before: that is the flaw.
        entry = self.server.bank.move_money(client_id, request, busy=self.lab_header("Lab-Fail") == "busy")
        self.crash_if_asked("after-money")
        return 201, entry

    # -- Lab controls (docs/reference/lab-controls.md "Lab controls"): without --lab-controls their headers are ignored.
    def lab_header(self, name):
        return self.headers.get(name, "") if self.server.lab_controls else ""

    def crash_if_asked(self, point):
        if self.lab_header("Lab-Crash") == point:
            sys.stderr.write(f"lab: Lab-Crash: {point}: the process ends now (exit {CRASH_EXIT_CODE})\n")
            sys.stderr.flush()
            os._exit(CRASH_EXIT_CODE)  # _exit, not exit: no clean-up and no answer, exactly what a kill leaves

    # -- The plumbing: read the request, write the answer.
    def do_GET(self):  # http.server calls do_<METHOD>; one router serves them all (PUT, DELETE: a 404)
        self.serve(self.command)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

    def content_type(self):
        return self.headers.get("Content-Type", "")

    def read_body(self):
        """The body, by Content-Length (chunked bodies are not supported)."""
        length = self.headers.get("Content-Length", "0")
        if not (length.isascii() and length.isdigit()):
            self.close_connection = True  # where the body ends is unknown: nothing after it can be read
            return b""
        if int(length) > HARD_BODY_LIMIT:
            self.close_connection = True  # the body is left unread, so the connection cannot go on
            raise Problem("body-too-large", f"the body is larger than {HARD_BODY_LIMIT} bytes")
        return self.rfile.read(int(length))

    def serve(self, method):
        """Routes one request and writes its answer; every Problem raised on the way is written here, once."""
        started = time.monotonic()
        path, _, query = self.path.partition("?")
        try:
            try:
                status, body, *more = self.route(method, path, query, self.read_body())
                headers = more[0] if more else {}  # a route may add headers: (status, body, headers)
            except sqlite3.OperationalError as e:  # "database is locked": another process held it too long
                raise Problem("service-unavailable", str(e), {"Retry-After": "1"})
        except Problem as p:
            status, body, headers = p.status, p.body(), p.headers
        except Exception as e:
            self.log_message("error: %s %s: %r", method, path, e)
            status, body, headers = 500, Problem("internal-error", repr(e)).body(), {}
        # A body of (Content-Type, bytes) is an answer rendered before: sent as it is (a replay, stage 5).
        content_type, data = body if isinstance(body, tuple) else rendered(status, body)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))  # keep-alive: how the client finds the answer's end
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        if not self.server.quiet:
            key = self.headers.get("Idempotency-Key", "-")
            self.log_message("%s %s key=%s %d %.1fms", method, path, key, status, (time.monotonic() - started) * 1e3)

    def log_request(self, code="-", size="-"):
        pass  # http.server's own line per request; serve() writes the lab's instead, unless --quiet


class LabServer(ThreadingHTTPServer):
    """http.server, set up for bursts of clients (docs/learn/for-learners.md "For learners", the pitfalls)."""
    daemon_threads = True                # a thread per connection; none keeps the process alive at exit
    request_queue_size = LISTEN_BACKLOG  # listen(1024), not listen(5): the grader connects 32 clients at once


def main(argv, handler=None, open_bank=None, started=None):
    """Parses the flags, opens the bank and serves until SIGTERM. A server grown from this one
    (learner-python/server.py) passes its own handler class, its own bank class and `started(server)`,
    work to do once the server is up; server.options holds every flag."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--port", type=int, default=8080, help="TCP port; 0 picks a free one")
    parser.add_argument("--db", default="idempotency-lab.db", help="SQLite file, created if missing")
    parser.add_argument("--admin-token", help="bearer token for /admin/*; default: a random one, printed")
    parser.add_argument("--lab-controls", action="store_true", help="honour Lab-* headers and POST /admin/clock")
    parser.add_argument("--lease", type=int, default=30,
                        help="seconds a claim stays in progress (stage 4 on; stage 1 ignores it)")
    parser.add_argument("--key-ttl", type=int, default=86400, help="seconds a key is kept (stage 6; stage 1 ignores it)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback only by default)")
    parser.add_argument("--quiet", action="store_true", help="no log line per request")
    options, unknown = parser.parse_known_args(argv)
    if unknown:  # a newer grader may pass a flag this server does not know: go on without it
        print(f"ignoring unknown options: {' '.join(unknown)}", file=sys.stderr)
    if not 0 <= options.port <= 65535:
        parser.error("--port takes a number from 0 to 65535")
    if options.admin_token == "":
        parser.error("--admin-token may not be empty")
    admin_token = options.admin_token or "adm_" + secrets.token_hex(16)
    if not options.admin_token:
        print(f"admin token: {admin_token}", file=sys.stderr)

    try:
        bank = (open_bank or Bank)(options.db)
        server = LabServer((options.host, options.port), handler or Handler)
    except (sqlite3.Error, OSError) as e:
        print(f"{parser.prog}: cannot start (database {options.db}, {options.host}:{options.port}): {e}",
              file=sys.stderr)
        return 1
    server.bank, server.admin_token = bank, admin_token
    server.lab_controls, server.quiet, server.options = options.lab_controls, options.quiet, options
    if started:
        started(server)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # SIGTERM stops the server as cleanly as Ctrl-C
    print(f"listening on http://{options.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
