#!/usr/bin/env python3
"""check_openapi.py: openapi.yaml and the contract's chapter say what a real stage 6 server does. docs/reference/http-contract.md "The HTTP contract".

    python3 tests/docs/check_openapi.py build/stages/stage6_scope_ttl

Starts the server (--port 0 --db <tmp> --admin-token T --lab-controls), drives every operation of openapi.yaml
at least once, and checks each answer against the operation's declared response for that status: the status
is declared, the content type is the declared one, the body fits the schema (required members present, types,
enums, bounds, no undeclared members where additionalProperties is false), required headers are present, and a
problem's type is one the response lists in x-problem-types. Then it checks that every problem type the
server serves at GET /problems is in openapi.yaml and in the contract's chapter, and the other way round.

Standard library only. openapi.yaml is read with PyYAML when it is installed (Debian: python3-yaml), else with
the small reader below, which knows exactly the YAML subset the file is written in; when both are present
they must agree, so the file cannot drift out of that subset unnoticed.

Prints one line per check and "N passed, M failed"; exits 1 if any check failed, 2 if it could not run.
"""
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONTRACT_CHAPTER = "docs/reference/http-contract.md"  # the problem table
ADMIN_TOKEN = "T"
START_TIMEOUT_S = 10   # a stage server prints its "listening on" line in well under a second
HTTP_TIMEOUT_S = 15    # longer than the Lab-Delay-Ms used below
SLOW_MS = 3000         # Lab-Delay-Ms of the first request in the 409 check: time for the repeat to arrive


# ---------------------------------------------------------------------------------------------------------
# Reading openapi.yaml: PyYAML if present, else a reader for the subset the file uses.
# ---------------------------------------------------------------------------------------------------------

class YamlSubsetError(ValueError):
    pass


def _indent_of(line):
    return len(line) - len(line.lstrip(" "))


def _split_flow(text):
    """Splits the inside of a flow sequence on commas outside quotes."""
    items, current, quote = [], "", None
    for ch in text:
        if quote:
            current += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            current += ch
        elif ch == ",":
            items.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        items.append(current.strip())
    return items


def _scalar(text):
    text = text.strip()
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise YamlSubsetError("unterminated single-quoted scalar: " + text)
        return text[1:-1].replace("''", "'")
    if text.startswith('"'):
        return json.loads(text)
    if text.startswith("["):
        if not text.endswith("]"):
            raise YamlSubsetError("flow sequence must end on its line: " + text)
        return [_scalar(item) for item in _split_flow(text[1:-1])]
    if text == "{}":
        return {}
    if text.startswith("{") or text.startswith("&") or text.startswith("*") or text.startswith("!"):
        raise YamlSubsetError("outside the subset: " + text)
    comment = text.find(" #")
    if comment >= 0:
        text = text[:comment].rstrip()
    if text in ("null", "~", ""):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if re.fullmatch(r"[-+]?(0|[1-9][0-9]*)", text):
        return int(text)
    if re.fullmatch(r"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", text):
        return float(text)
    return text


def _split_key(text):
    """'key: rest' -> (key, rest); quoted keys allowed."""
    if text[0] in "'\"":
        end = text.index(text[0], 1)
        key, after = _scalar(text[: end + 1]), text[end + 1 :]
        if not after.startswith(":"):
            raise YamlSubsetError("expected ':' after key: " + text)
        return key, after[1:].strip()
    match = re.match(r"^([^:#]+?):(\s+(.*))?$", text)
    if not match:
        raise YamlSubsetError("not a mapping entry: " + text)
    return match.group(1), (match.group(3) or "").strip()


def _is_mapping_entry(text):
    if text[0] in "'\"":
        try:
            end = text.index(text[0], 1)
        except ValueError:
            return False
        return text[end + 1 :].startswith(":")
    if text[0] in "[{":
        return False
    return re.match(r"^[^:#]+?:(\s|$)", text) is not None


class _SubsetReader:
    def __init__(self, text):
        self.lines = text.split("\n")
        self.i = 0

    def _peek(self):
        while self.i < len(self.lines):
            stripped = self.lines[self.i].strip()
            if stripped and not stripped.startswith("#"):
                if "\t" in self.lines[self.i][: _indent_of(self.lines[self.i]) + 1]:
                    raise YamlSubsetError("tab in indentation, line %d" % (self.i + 1))
                return _indent_of(self.lines[self.i]), stripped
            self.i += 1
        return None

    def read(self):
        first = self._peek()
        value = self._node(first[0]) if first else None
        if self._peek() is not None:
            raise YamlSubsetError("unexpected text at line %d" % (self.i + 1))
        return value

    def _node(self, indent):
        _, text = self._peek()
        return self._sequence(indent) if text == "-" or text.startswith("- ") else self._mapping(indent)

    def _mapping(self, indent):
        result = {}
        while True:
            peeked = self._peek()
            if peeked is None or peeked[0] < indent:
                return result
            if peeked[0] > indent:
                raise YamlSubsetError("unexpected indentation at line %d" % (self.i + 1))
            if peeked[1].startswith("- "):
                raise YamlSubsetError("indent a sequence under its key, line %d" % (self.i + 1))
            key, rest = _split_key(peeked[1])
            if key in result:
                raise YamlSubsetError("duplicate key %r at line %d" % (key, self.i + 1))
            self.i += 1
            result[key] = self._value(rest, indent)

    def _value(self, rest, indent):
        if rest in ("|", "|-", "|+", ">", ">-", ">+"):
            return self._block_scalar(rest, indent)
        if rest:
            return _scalar(rest)
        peeked = self._peek()
        if peeked is None or peeked[0] <= indent:
            return None
        return self._node(peeked[0])

    def _sequence(self, indent):
        result = []
        while True:
            peeked = self._peek()
            if peeked is None or peeked[0] < indent:
                return result
            if peeked[0] != indent or not (peeked[1] == "-" or peeked[1].startswith("- ")):
                if peeked[0] > indent:
                    raise YamlSubsetError("unexpected indentation at line %d" % (self.i + 1))
                return result
            item = peeked[1][1:].strip()
            if not item:
                self.i += 1
                result.append(self._value("", indent))
            elif _is_mapping_entry(item):
                # "- key: value" opens a mapping indented past the dash.
                self.lines[self.i] = " " * (indent + 2) + item
                result.append(self._mapping(indent + 2))
            else:
                self.i += 1
                result.append(_scalar(item))

    def _block_scalar(self, style, indent):
        body = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip() and _indent_of(line) <= indent:
                break
            body.append(line)
            self.i += 1
        while body and not body[-1].strip():
            body.pop()
        if not body:
            return ""
        block_indent = min(_indent_of(l) for l in body if l.strip())
        lines = [l[block_indent:] if l.strip() else "" for l in body]
        if style[0] == "|":
            text = "\n".join(lines)
        else:
            text, pending_blank = "", 0
            for line in lines:
                if not line:
                    pending_blank += 1
                    continue
                if text:
                    text += "\n" * pending_blank if pending_blank else " "
                text += line
                pending_blank = 0
        return text if style.endswith("-") else text + "\n"


def load_openapi(path):
    text = path.read_text(encoding="utf-8")
    subset = _SubsetReader(text).read()
    try:
        import yaml  # noqa: PLC0415  (optional)
    except ImportError:
        return subset, "the built-in YAML subset reader (PyYAML not installed)"
    full = yaml.safe_load(text)
    if full != subset:
        raise YamlSubsetError("openapi.yaml reads differently with PyYAML and with the subset reader: "
                              "keep it to the subset described at the top of tests/docs/check_openapi.py ("
                              + _first_difference(full, subset, "$") + ")")
    return full, "PyYAML (and the subset reader agrees)"


def _first_difference(a, b, where):
    if type(a) is not type(b):
        return "%s: %r vs %r" % (where, a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return "%s.%s present in one only" % (where, k)
            if a[k] != b[k]:
                return _first_difference(a[k], b[k], "%s.%s" % (where, k))
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: lengths %d vs %d" % (where, len(a), len(b))
        for n, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, "%s[%d]" % (where, n))
    return "%s: %r vs %r" % (where, a, b)


# ---------------------------------------------------------------------------------------------------------
# A small OpenAPI 3.0 schema checker: the keywords openapi.yaml uses.
# ---------------------------------------------------------------------------------------------------------

class Spec:
    def __init__(self, doc):
        self.doc = doc

    def resolve(self, node):
        seen = 0
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#/"):
                raise ValueError("only local $ref is supported: " + ref)
            node = self.doc
            for part in ref[2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            seen += 1
            if seen > 20:
                raise ValueError("$ref loop at " + ref)
        return node

    def errors(self, schema, value, where="body"):
        """Every way value fails schema, as readable sentences (empty: it fits)."""
        schema = self.resolve(schema)
        found = []
        if value is None:
            return [] if schema.get("nullable") else ["%s is null, which the schema does not allow" % where]
        if "allOf" in schema:
            for part in schema["allOf"]:
                found += self.errors(part, value, where)
        if "oneOf" in schema:
            fits = [s for s in schema["oneOf"] if not self.errors(s, value, where)]
            chosen = schema.get("discriminator", {}).get("mapping", {}).get(
                value.get(schema.get("discriminator", {}).get("propertyName")) if isinstance(value, dict) else None)
            if not fits and chosen:   # say why the variant the discriminator names does not fit
                found += self.errors({"$ref": chosen}, value, where)
            elif len(fits) != 1:
                names = [s.get("$ref", "?").rsplit("/", 1)[-1] for s in schema["oneOf"]]
                found.append("%s fits %d of oneOf %s, not exactly 1" % (where, len(fits), names))
        if "anyOf" in schema and not any(not self.errors(s, value, where) for s in schema["anyOf"]):
            found.append("%s fits none of anyOf" % where)
        kind = schema.get("type")
        if kind and not _has_type(value, kind):
            return found + ["%s is %s, expected %s" % (where, json.dumps(value)[:60], kind)]
        if "enum" in schema and value not in schema["enum"]:
            found.append("%s is %s, not one of %s" % (where, json.dumps(value), schema["enum"]))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                found.append("%s is %s, below the minimum %s" % (where, value, schema["minimum"]))
            if "maximum" in schema and value > schema["maximum"]:
                found.append("%s is %s, above the maximum %s" % (where, value, schema["maximum"]))
        if isinstance(value, str):
            if "minLength" in schema and len(value) < schema["minLength"]:
                found.append("%s is shorter than %d" % (where, schema["minLength"]))
            if "maxLength" in schema and len(value.encode("utf-8")) > schema["maxLength"]:
                found.append("%s is longer than %d bytes" % (where, schema["maxLength"]))
            if "pattern" in schema and not re.search(schema["pattern"], value):
                found.append("%s is %r, which does not match %s" % (where, value, schema["pattern"]))
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                found.append("%s has fewer than %d items" % (where, schema["minItems"]))
            for n, item in enumerate(value):
                found += self.errors(schema.get("items", {}), item, "%s[%d]" % (where, n))
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            for name in schema.get("required", []):
                if name not in value:
                    found.append("%s has no member %r (required)" % (where, name))
            for name, member in value.items():
                if name in properties:
                    found += self.errors(properties[name], member, "%s.%s" % (where, name))
                elif schema.get("additionalProperties") is False:
                    found.append("%s has member %r, which the schema does not declare" % (where, name))
                elif isinstance(schema.get("additionalProperties"), dict):
                    found += self.errors(schema["additionalProperties"], member, "%s.%s" % (where, name))
        return found


def _has_type(value, kind):
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, {"string": str, "boolean": bool, "array": list, "object": dict}[kind])


# ---------------------------------------------------------------------------------------------------------
# The server under test.
# ---------------------------------------------------------------------------------------------------------

class Server:
    """A stage server on a free port with a fresh database; stopped (SIGTERM, then SIGKILL) by stop()."""

    def __init__(self, binary, lab_controls=True):
        self.dir = tempfile.mkdtemp(prefix="check-openapi-")
        args = [binary, "--port", "0", "--db", os.path.join(self.dir, "lab.db"), "--admin-token", ADMIN_TOKEN, "--quiet"]
        if lab_controls:
            args.append("--lab-controls")
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = self._read_port()

    def _read_port(self):
        found = {}

        def read():
            for line in self.process.stdout:
                match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
                if match:
                    found["port"] = int(match.group(1))
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(START_TIMEOUT_S)
        if "port" not in found:
            self.stop()
            raise RuntimeError("no 'listening on http://127.0.0.1:PORT' line within %d s" % START_TIMEOUT_S)
        return found["port"]

    def request(self, method, path, headers=None, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HTTP_TIMEOUT_S)
        try:
            data = body if body is None or isinstance(body, bytes) else body.encode("utf-8")
            conn.request(method, path, body=data, headers=headers or {})
            res = conn.getresponse()
            return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
        finally:
            conn.close()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------------------
# The checks.
# ---------------------------------------------------------------------------------------------------------

class Checker:
    def __init__(self, spec):
        self.spec = spec
        self.passed = 0
        self.failed = 0
        self.operations_seen = set()
        self.last_raw = b""   # the body bytes of the latest exchange

    def result(self, name, problems):
        if problems:
            self.failed += 1
            print("FAIL  " + name)
            for p in problems:
                print("        " + p)
        else:
            self.passed += 1
            print("ok    " + name)

    def operation(self, method, path):
        """The operation whose path template matches path (query string ignored)."""
        bare = path.split("?", 1)[0]
        for template, item in self.spec.doc["paths"].items():
            pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
            if re.match(pattern, bare) and method.lower() in item:
                return template, item[method.lower()]
        return None, None

    def exchange(self, server, name, method, path, status, headers=None, body=None, operation_id=None,
                 problem=None, want_headers=()):
        """Sends one request and checks the answer against openapi.yaml; returns the parsed body."""
        got_status, got_headers, raw = server.request(method, path, headers, body)
        self.last_raw = raw
        template, op = self.operation(method, path)
        problems = []
        parsed = None
        if op is None:
            problems.append("openapi.yaml has no operation for %s %s" % (method, path))
        else:
            self.operations_seen.add(op["operationId"])
            if operation_id and op["operationId"] != operation_id:
                problems.append("%s %s is operation %s in openapi.yaml, expected %s"
                                % (method, template, op["operationId"], operation_id))
        if got_status != status:
            problems.append("status %d, expected %d: %s" % (got_status, status, raw[:200].decode("utf-8", "replace")))
        if op is not None:
            declared = self.spec.resolve(op["responses"].get(str(got_status), {}))
            if not declared:
                problems.append("status %d is not declared for %s" % (got_status, op["operationId"]))
            else:
                parsed = self._check_response(declared, got_status, got_headers, raw, problems)
                for header in want_headers:
                    if header.lower() not in got_headers:
                        problems.append("no %s header" % header)
                    elif header not in declared.get("headers", {}):
                        problems.append("%s is sent but not declared for status %d" % (header, got_status))
        elif raw:
            parsed = _json_or_none(raw)
        if problem and (not isinstance(parsed, dict) or parsed.get("type") != "/problems/" + problem):
            problems.append("expected problem type /problems/%s, got %s" % (problem, (parsed or {}).get("type")))
        self.result(name, problems)
        return parsed, got_headers

    def _check_response(self, declared, status, headers, raw, problems):
        for name, header in declared.get("headers", {}).items():
            header = self.spec.resolve(header)
            if header.get("required") and name.lower() not in headers:
                problems.append("required header %s missing" % name)
            elif name.lower() in headers:
                value = headers[name.lower()]
                schema = self.spec.resolve(header.get("schema", {}))
                if schema.get("type") == "integer":
                    value = int(value) if re.fullmatch(r"\d+", value) else value
                problems += self.spec.errors(schema, value, "header " + name)
        content = declared.get("content", {})
        media = headers.get("content-type", "").split(";")[0].strip()
        if content and media not in content:
            problems.append("Content-Type %r, declared: %s" % (media, ", ".join(content)))
            return None
        parsed = _json_or_none(raw)
        if content:
            if parsed is None and raw:
                problems.append("body is not JSON: %r" % raw[:80])
                return None
            problems += self.spec.errors(content[media]["schema"], parsed)
            listed = declared.get("x-problem-types")
            if listed and isinstance(parsed, dict) and parsed.get("type", "").rsplit("/", 1)[-1] not in listed:
                problems.append("problem type %s is not among this response's x-problem-types %s"
                                % (parsed.get("type"), listed))
            if isinstance(parsed, dict) and media == "application/problem+json" and parsed.get("status") != status:
                problems.append("problem status %s differs from the HTTP status %d" % (parsed.get("status"), status))
        return parsed


def _json_or_none(raw):
    try:
        return json.loads(raw)
    except ValueError:
        return None


def admin(extra=None):
    h = {"Authorization": "Bearer " + ADMIN_TOKEN, "Content-Type": "application/json"}
    h.update(extra or {})
    return h


def client(token, key=None, extra=None):
    h = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    if key is not None:
        h["Idempotency-Key"] = '"%s"' % key
    h.update(extra or {})
    return h


def drive(c, server):
    """Every operation once, and every status the lab can be made to answer without faking a fault."""
    c.exchange(server, "getHealth 200", "GET", "/healthz", 200, operation_id="getHealth")
    registry, _ = c.exchange(server, "listProblemTypes 200", "GET", "/problems", 200, operation_id="listProblemTypes")
    policy, _ = c.exchange(server, "getIdempotencyPolicy 200", "GET", "/idempotency-policy", 200,
                           operation_id="getIdempotencyPolicy")
    if isinstance(policy, dict):
        want = {"key_ttl_seconds": 86400, "lease_seconds": 30, "scope": ["client", "endpoint", "key"]}
        c.result("getIdempotencyPolicy reports the defaults in force",
                 ["%s is %r, expected %r" % (k, policy.get(k), v) for k, v in want.items() if policy.get(k) != v])

    # Admin: clients and accounts.
    c.exchange(server, "createClient 401 without a token", "POST", "/admin/clients", 401,
               {"Content-Type": "application/json"}, '{"name":"mallory"}', "createClient", "unauthorized",
               want_headers=["WWW-Authenticate"])
    c.exchange(server, "createClient 415 not JSON", "POST", "/admin/clients", 415,
               admin({"Content-Type": "text/plain"}), "name=alice", "createClient", "unsupported-media-type")
    c.exchange(server, "createClient 400 without a name", "POST", "/admin/clients", 400, admin(), "{}",
               "createClient", "invalid-field")
    alice, _ = c.exchange(server, "createClient 201", "POST", "/admin/clients", 201, admin(), '{"name":"alice"}',
                          "createClient")
    bob, _ = c.exchange(server, "createClient 201 (a second client)", "POST", "/admin/clients", 201, admin(),
                        '{"name":"bob"}', "createClient")
    if not (isinstance(alice, dict) and isinstance(bob, dict)):
        raise RuntimeError("cannot go on without two clients")
    accounts = {}
    for name, owner, balance, currency in (("a1", alice, 10000, "USD"), ("a2", alice, 0, "USD"),
                                           ("b1", bob, 5000, "USD"), ("e1", alice, 3000, "EUR")):
        body = json.dumps({"client_id": owner["id"], "balance": balance, "currency": currency})
        account, _ = c.exchange(server, "createAccount 201 (%s %s)" % (owner["name"], currency), "POST",
                                "/admin/accounts", 201, admin(), body, "createAccount")
        accounts[name] = (account or {}).get("id", 0)
    c.exchange(server, "createAccount 400 unknown client", "POST", "/admin/accounts", 400, admin(),
               '{"client_id":999999,"balance":1,"currency":"USD"}', "createAccount", "invalid-field")
    c.exchange(server, "createAccount 400 bad currency", "POST", "/admin/accounts", 400, admin(),
               '{"client_id":%d,"balance":1,"currency":"usd"}' % alice["id"], "createAccount", "invalid-field")

    # Client: accounts.
    tok, bob_tok = alice["token"], bob["token"]
    c.exchange(server, "getAccount 200", "GET", "/accounts/%d" % accounts["a1"], 200, client(tok), None, "getAccount")
    c.exchange(server, "getAccount 404 another client's account", "GET", "/accounts/%d" % accounts["b1"], 404,
               client(tok), None, "getAccount", "not-found")
    c.exchange(server, "getAccount 401 unknown token", "GET", "/accounts/%d" % accounts["a1"], 401,
               client("tok_unknown"), None, "getAccount", "unauthorized", want_headers=["WWW-Authenticate"])

    # Client: money. Each key is new unless the check is about a repeat.
    transfer = lambda amount, to=accounts["a2"], currency="USD": json.dumps(  # noqa: E731
        {"from_account": accounts["a1"], "to_account": to, "amount": amount, "currency": currency, "memo": "rent"})
    _, first_headers = c.exchange(server, "createTransfer 201", "POST", "/transfers", 201, client(tok, "k-201"),
                                  transfer(1500), "createTransfer")
    first_raw = c.last_raw
    c.exchange(server, "createTransfer 201 replayed with Idempotent-Replayed", "POST", "/transfers", 201,
               client(tok, "k-201"), transfer(1500), "createTransfer", want_headers=["Idempotent-Replayed"])
    c.result("a replay repeats the first response byte for byte; the first is not marked",
             ([] if c.last_raw == first_raw else ["replay %r differs from the first %r" % (c.last_raw, first_raw)]) +
             (["the first response carries Idempotent-Replayed"] if "idempotent-replayed" in first_headers else []))
    c.exchange(server, "createTransfer 400 without Idempotency-Key", "POST", "/transfers", 400, client(tok),
               transfer(100), "createTransfer", "idempotency-key-missing")
    bad, _ = c.exchange(server, "createTransfer 400 invalid fields", "POST", "/transfers", 400,
                        client(tok, "k-400"), '{"from_account":1,"to_account":1,"ammount":5,"currency":"usd"}',
                        "createTransfer", "invalid-field")
    c.result("invalid-field lists every field error",
             [] if isinstance(bad, dict) and len(bad.get("errors", [])) >= 3 else ["errors holds fewer than 3 items"])
    c.exchange(server, "createTransfer 400 duplicate member", "POST", "/transfers", 400, client(tok, "k-dup"),
               '{"amount":1,"amount":2}', "createTransfer", "json-duplicate-member")
    c.exchange(server, "createTransfer 400 currency mismatch", "POST", "/transfers", 400, client(tok, "k-eur"),
               transfer(100, accounts["e1"]), "createTransfer", "currency-mismatch")
    c.exchange(server, "createTransfer 402", "POST", "/transfers", 402, client(tok, "k-402"), transfer(10 ** 9),
               "createTransfer", "insufficient-funds")
    c.exchange(server, "createTransfer 404 unknown account", "POST", "/transfers", 404, client(tok, "k-404"),
               transfer(100, 999999), "createTransfer", "not-found")
    c.exchange(server, "createTransfer 401", "POST", "/transfers", 401, {"Content-Type": "application/json"},
               transfer(100), "createTransfer", "unauthorized", want_headers=["WWW-Authenticate"])
    c.exchange(server, "createTransfer 415", "POST", "/transfers", 415,
               client(tok, "k-415", {"Content-Type": "text/plain"}), transfer(100), "createTransfer",
               "unsupported-media-type")
    c.exchange(server, "createTransfer 413", "POST", "/transfers", 413, client(tok, "k-413"),
               '{"memo":"' + "x" * 20000 + '"}', "createTransfer", "body-too-large")
    c.exchange(server, "createTransfer 422 same key, another amount", "POST", "/transfers", 422,
               client(tok, "k-201"), transfer(1600), "createTransfer", "idempotency-key-reused")

    # Integer fields in any spelling of their value, and metadata: echoed, and part of the fingerprint.
    metadata = {"order": "A-17", "rate": 0.1, "lines": [1, "two"]}
    with_metadata = ('{"from_account":%d.0,"to_account":%d,"amount":1.5e2,"currency":"USD","metadata":%s}'
                     % (accounts["a1"], accounts["a2"], json.dumps(metadata)))
    created, _ = c.exchange(server, "createTransfer 201 with metadata and numbers written as floats", "POST",
                            "/transfers", 201, client(tok, "k-meta"), with_metadata, "createTransfer")
    created_raw = c.last_raw
    c.result("the 201 echoes the metadata and the amount as an integer",
             [] if isinstance(created, dict) and created.get("metadata") == metadata and created.get("amount") == 150
             and isinstance(created.get("amount"), int) else ["201 body is %r" % (created,)])
    respelled = ('{"metadata":{"lines":[1.0,"two"],"rate":1E-1,"order":"A-\\u0031\\u0037"},"amount":150,'
                 '"currency":"USD","to_account":%d,"from_account":%d}' % (accounts["a2"], accounts["a1"]))
    c.exchange(server, "createTransfer 201 replayed for the same body spelled differently", "POST", "/transfers",
               201, client(tok, "k-meta"), respelled, "createTransfer", want_headers=["Idempotent-Replayed"])
    c.result("the replay of a respelled body is the first response byte for byte",
             [] if c.last_raw == created_raw else ["replay %r differs from the first %r" % (c.last_raw, created_raw)])
    c.exchange(server, "createTransfer 422 same key, another metadata value", "POST", "/transfers", 422,
               client(tok, "k-meta"), with_metadata.replace('"A-17"', '"A-18"'), "createTransfer",
               "idempotency-key-reused")
    c.exchange(server, "createTransfer 400 metadata with 21 keys", "POST", "/transfers", 400, client(tok, "k-m400"),
               json.dumps({"from_account": accounts["a1"], "to_account": accounts["a2"], "amount": 1,
                           "currency": "USD", "metadata": {"k%d" % n: n for n in range(21)}}),
               "createTransfer", "invalid-field")

    # 409: a repeat while the first request with the key sleeps between its claim and the money.
    slow = threading.Thread(target=server.request, args=(
        "POST", "/transfers", client(tok, "k-409", {"Lab-Delay-Ms": str(SLOW_MS)}), transfer(100)))
    slow.start()
    time.sleep(SLOW_MS / 3000)
    c.exchange(server, "createTransfer 409 with Retry-After while the first runs", "POST", "/transfers", 409,
               client(tok, "k-409"), transfer(100), "createTransfer", "request-in-progress",
               want_headers=["Retry-After"])
    slow.join()

    c.exchange(server, "createPayout 201", "POST", "/payouts", 201, client(tok, "k-201"),
               json.dumps({"from_account": accounts["a1"], "destination": "IBAN DE89370400440532013000",
                           "amount": 700, "currency": "USD"}), "createPayout")
    c.exchange(server, "createPayout 404 another client's account", "POST", "/payouts", 404, client(bob_tok, "k-201"),
               json.dumps({"from_account": accounts["a1"], "destination": "X", "amount": 1, "currency": "USD"}),
               "createPayout", "not-found")

    # Admin: ledger and clock.
    c.exchange(server, "listLedger 200", "GET", "/admin/ledger", 200, admin(), None, "listLedger")
    page, _ = c.exchange(server, "listLedger 200 one per page", "GET", "/admin/ledger?after=0&limit=1", 200, admin(),
                         None, "listLedger")
    c.result("listLedger: a full page names the next cursor",
             [] if isinstance(page, dict) and page.get("next") == (page.get("entries") or [{}])[0].get("id")
             else ["next is %r" % (page or {}).get("next")])
    whole, _ = c.exchange(server, "listLedger 200 every entry", "GET", "/admin/ledger?limit=1000", 200, admin(),
                          None, "listLedger")
    ids = [e.get("id") for e in (whole or {}).get("entries") or []] if isinstance(whole, dict) else []
    if len(ids) >= 2:
        last, _ = c.exchange(server, "listLedger 200 the last page, exactly full", "GET",
                             "/admin/ledger?after=%d&limit=1" % ids[-2], 200, admin(), None, "listLedger")
        c.result("listLedger: the last page has next null, also when it is exactly full",
                 [] if isinstance(last, dict) and len(last.get("entries") or []) == 1 and last.get("next") is None
                 else ["last page is %r" % (last,)])
    else:
        c.result("listLedger: the last page has next null, also when it is exactly full",
                 ["the ledger holds %d entries, the check needs 2" % len(ids)])
    c.exchange(server, "listLedger 400 limit 0", "GET", "/admin/ledger?limit=0", 400, admin(), None, "listLedger",
               "invalid-field")
    c.exchange(server, "listLedger 401", "GET", "/admin/ledger", 401, {}, None, "listLedger", "unauthorized")
    c.exchange(server, "advanceClock 200", "POST", "/admin/clock", 200, admin(), '{"advance_ms":1000}',
               "advanceClock")
    c.exchange(server, "advanceClock 400 negative", "POST", "/admin/clock", 400, admin(), '{"advance_ms":-1}',
               "advanceClock", "invalid-field")

    # A route that does not exist is a problem document too (not an operation: checked against Problem).
    status, headers, raw = server.request("GET", "/no-such-route")
    body = _json_or_none(raw)
    c.result("an unknown route is 404 route-not-found problem+json",
             ([] if status == 404 else ["status %d" % status]) +
             c.spec.errors({"$ref": "#/components/schemas/Problem"}, body) +
             ([] if isinstance(body, dict) and body.get("type") == "/problems/route-not-found" else ["wrong type"]))
    return registry


def check_problem_registry(c, registry):
    served = {entry["type"].rsplit("/", 1)[-1] for entry in (registry or {}).get("problem_types", [])}
    in_spec = {t.rsplit("/", 1)[-1] for t in c.spec.resolve({"$ref": "#/components/schemas/Problem"})
               ["properties"]["type"]["enum"]}
    listed = set()
    for op_item in c.spec.doc["paths"].values():
        for op in op_item.values():
            for response in op["responses"].values():
                listed |= set(c.spec.resolve(response).get("x-problem-types", []))
    lab_md = (REPO / CONTRACT_CHAPTER).read_text(encoding="utf-8")
    # Only the problem table's section: other tables of the text (the day's stories) also start with a name
    # in backticks and a three-digit number.
    start = lab_md.index("## Errors: problem+json")
    lab_md = lab_md[start:lab_md.index("\n## ", start + 1)]
    in_lab = set(re.findall(r"^\| `([a-z0-9-]+)` \| \d{3} \|", lab_md, re.M))
    c.result("GET /problems serves at least one type", [] if served else ["no problem types served"])
    c.result("every served problem type is in openapi.yaml's Problem.type enum",
             ["/problems/%s is missing from openapi.yaml" % s for s in sorted(served - in_spec)])
    c.result("openapi.yaml lists no problem type the server does not serve",
             ["/problems/%s is in openapi.yaml but not served" % s for s in sorted(in_spec - served)])
    c.result("every x-problem-types entry is a served type",
             ["x-problem-types names %s, which the server does not serve" % s for s in sorted(listed - served)])
    c.result("every served problem type is in the contract's problem table",
             ["`%s` is missing from the table in docs/reference/http-contract.md \"Errors: problem+json\"" % s for s in sorted(served - in_lab)])
    c.result("the contract's problem table lists no type the server does not serve",
             ["`%s` is in %s but not served" % (s, CONTRACT_CHAPTER) for s in sorted(in_lab - served)])
    statuses = {e["type"].rsplit("/", 1)[-1]: e["status"] for e in (registry or {}).get("problem_types", [])}
    table = dict(re.findall(r"^\| `([a-z0-9-]+)` \| (\d{3}) \|", lab_md, re.M))
    c.result("the contract's table gives each type the status the server serves",
             ["`%s`: the text says %s, the server %d" % (s, table[s], statuses[s])
              for s in sorted(set(table) & set(statuses)) if int(table[s]) != statuses[s]])


def main(argv):
    if len(argv) != 2:
        print("usage: check_openapi.py <path to stage6_scope_ttl>", file=sys.stderr)
        return 2
    binary = argv[1]
    if not os.access(binary, os.X_OK):
        print("check_openapi: %s is not an executable" % binary, file=sys.stderr)
        return 2
    try:
        doc, how = load_openapi(REPO / "openapi.yaml")
    except (YamlSubsetError, ValueError) as e:
        print("FAIL  openapi.yaml cannot be read: %s\n0 passed, 1 failed" % e)
        return 1
    print("openapi.yaml read with " + how)
    c = Checker(Spec(doc))
    all_ops = {op["operationId"] for item in doc["paths"].values() for op in item.values()}
    c.result("every operation has a unique operationId",
             [] if len(all_ops) == sum(len(item) for item in doc["paths"].values()) else ["duplicate operationId"])

    server = Server(binary)
    try:
        registry = drive(c, server)
    finally:
        server.stop()
    check_problem_registry(c, registry)

    # Without --lab-controls the clock is refused, after the admin token is checked.
    server = Server(binary, lab_controls=False)
    try:
        c.exchange(server, "advanceClock 403 without --lab-controls", "POST", "/admin/clock", 403, admin(),
                   '{"advance_ms":1}', "advanceClock", "lab-controls-disabled")
    finally:
        server.stop()

    c.result("every operation in openapi.yaml was driven",
             ["%s was never called" % op for op in sorted(all_ops - c.operations_seen)])
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (RuntimeError, OSError) as e:
        print("check_openapi: cannot run: %s" % e, file=sys.stderr)
        sys.exit(2)
