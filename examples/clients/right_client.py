#!/usr/bin/env python3
r"""right_client.py: a transfer client that keeps its half of the bargain. docs/learn/the-clients-side.md "The client's side".

    python3 examples/clients/right_client.py --url http://127.0.0.1:8080 --token tok_... \
        --journal /tmp/shop.journal --intents 5 --from 1 --to 2 --amount 100
    python3 examples/clients/right_client.py --url ... --token ... --journal /tmp/shop.journal --resume

The rules it follows, each at the line that does it:
  1. One key per intent, made once and written to the client's own journal (SQLite, fsync'd) BEFORE the
     first send: a crash of this process cannot lose the key, so a restart retries under the same one.
  2. Every retry of an intent carries the same key and the same bytes.
  3. No answer, 409, 429, 503 and other 5xx are retried, after exponential backoff with full jitter and never
     sooner than Retry-After; 422 idempotency-key-reused is a bug of this client, and every other 4xx is the
     server's final word: neither is retried.
  4. Every send of a key falls within half the retention the server publishes at GET /idempotency-policy,
     counted from the key's first send: a retry after the server forgot the key would be a new transfer.
  5. Giving up leaves the intent "unknown" in the journal with its key: running again (or --resume) asks
     with the same key what happened. Never a new key for the same intent.

Prints one line per intent and a summary; --verbose adds one line per send on stderr. Exits 0 when every
intent is done or refused, 1 when one is unknown, hit a client bug or conflicts with the journal (its name
journaled with another body), 2 on a usage error or a server that publishes no retention.
"""
import argparse
import os
import random
import sqlite3
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transfer_http import (NoAnswer, add_intent_arguments, encoded, parse_command_line,   # noqa: E402
                           read_policy, retry_after_seconds, send_transfer)

# ---- Tuning (each with its unit and its reason) -----------------------------------------------------------
BACKOFF_BASE_S = 0.25    # the first retry's ceiling; doubled per retry (the-clients-side.md, backoff)
BACKOFF_CAP_S = 8.0      # no wait grows past this: a retry horizon of minutes, not hours
RETENTION_SHARE = 0.5    # a key is used at most this share of the server's retention after its first send:
                         # the server counts from its own claim on its own clock, so keep a wide margin
RETRYABLE_STATUSES = {408, 409, 429, 500, 502, 503, 504}   # "try again later, the same request"

# ---- The journal: the client's own durable memory of its intents -------------------------------------------
#
#   intents(name TEXT PRIMARY KEY,       -- the application's name for the intent ("pay-3")
#           key TEXT NOT NULL UNIQUE,    -- made here once, before the first send, never replaced
#           body BLOB NOT NULL,          -- the exact bytes every send of this intent carries
#           state TEXT NOT NULL,         -- pending | done | refused | client-bug | unknown
#           first_sent_ms INTEGER,       -- wall clock of the first send; NULL until it happens
#           outcome TEXT)                -- the last answer, for the report
#
#   pending --201--> done     pending --4xx--> refused     pending --422 key reused--> client-bug
#   pending --gave up, or 401--> unknown --run again: the same key--> done | refused | unknown
#
# Every statement is its own transaction (autocommit), committed with synchronous=FULL: on the disk when the
# call returns, so a kill of this process at any line loses nothing it has written.
UNFINISHED = ("pending", "unknown")


class Journal:
    def __init__(self, path):
        self.db = sqlite3.connect(path, isolation_level=None)   # autocommit: each statement commits
        self.db.execute("PRAGMA synchronous=FULL")   # each commit fsyncs: a crash right after keeps it
        self.db.execute("CREATE TABLE IF NOT EXISTS intents (name TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
                        " body BLOB NOT NULL, state TEXT NOT NULL, first_sent_ms INTEGER, outcome TEXT)")

    def row(self, name):
        found = self.db.execute("SELECT key, body, state, first_sent_ms, outcome FROM intents WHERE name = ?",
                                (name,)).fetchone()
        return dict(zip(("key", "body", "state", "first_sent_ms", "outcome"), found)) if found else None

    def remember(self, intent):
        """The intent's key: the journaled one, or a new one written to disk before anyone sends it."""
        known = self.row(intent.name)
        if known:
            return known
        key = str(uuid.uuid4())   # random: a key means "this intent", never "transfer number 3"
        self.db.execute("INSERT INTO intents (name, key, body, state) VALUES (?, ?, ?, 'pending')",
                        (intent.name, key, encoded(intent.body)))
        return self.row(intent.name)

    def first_send(self, name, now_ms):
        self.db.execute("UPDATE intents SET first_sent_ms = ? WHERE name = ? AND first_sent_ms IS NULL",
                        (now_ms, name))

    def settle(self, name, state, outcome):
        self.db.execute("UPDATE intents SET state = ?, outcome = ? WHERE name = ?", (state, outcome, name))

    def unfinished(self):
        return [name for (name,) in self.db.execute(
            "SELECT name FROM intents WHERE state IN (?, ?) ORDER BY rowid", UNFINISHED)]


def now_ms():
    return int(time.time() * 1000)


def backoff_s(retry):
    """Full jitter: a uniform wait between 0 and the exponential ceiling, so that clients who failed together
    do not all come back together (AWS, "Exponential Backoff And Jitter")."""
    return random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** retry))


def carry_out(args, journal, name, faults, retention_s, log):
    """Sends intent `name` (journaled) until the server's final word, or gives up. Returns (state, text, sends)."""
    row = journal.row(name)
    key, body = row["key"], row["body"]
    give_up_at = time.monotonic() + args.give_up_after
    sends = 0
    while True:
        if row["first_sent_ms"] is None:
            journal.first_send(name, now_ms())
            row = journal.row(name)
        usable_until_ms = row["first_sent_ms"] + retention_s * RETENTION_SHARE * 1000
        if now_ms() >= usable_until_ms:
            # The server may have forgotten this key: a send now could move the money a second time.
            return "unknown", "past the server's retention: look the transfer up by its memo, never resend", sends
        sends += 1
        try:
            answer = send_transfer(args.url, args.token, key, faults.body_for(name, sends, body),
                                   args.timeout, faults.headers_for(name, sends))
        except NoAnswer as error:
            log(f"{name} send {sends} (key {key}): no answer ({error})")
            wait_s, last = backoff_s(sends - 1), f"no answer ({error})"
        else:
            log(f"{name} send {sends} (key {key}): {answer.status} {answer.problem_type()}")
            if answer.status == 201:
                replay = " (the answer to an earlier send)" if answer.replayed else ""
                return "done", f"transfer {answer.body['id']}{replay}", sends
            if answer.status == 422 and answer.problem_type() == "idempotency-key-reused":
                # Our own bug: this key went out with another body. Retrying cannot fix it.
                return "client-bug", "422 idempotency-key-reused: a send changed the body", sends
            if answer.status == 401:
                # Refused before the key was looked at, so nothing is recorded under it: left unfinished.
                return "unknown", "401 unauthorized: fix --token, then run again (the same key)", sends
            if answer.status not in RETRYABLE_STATUSES:
                return "refused", f"{answer.status} {answer.problem_type()}", sends   # the server's final word
            # 409: the first send is still running; 503: nothing was recorded. Both: later, the same key.
            wait_s = max(retry_after_seconds(answer) or 0.0, backoff_s(sends - 1))
            last = f"{answer.status} {answer.problem_type()}"
        deadline_s = min(give_up_at, time.monotonic() + (usable_until_ms - now_ms()) / 1000)
        if time.monotonic() + wait_s >= deadline_s:
            return "unknown", f"gave up after {sends} sends (last: {last}); run again to ask with the same key", sends
        time.sleep(wait_s)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_intent_arguments(parser)
    parser.add_argument("--journal", required=True, metavar="FILE", help="the client's intent journal (SQLite)")
    parser.add_argument("--resume", action="store_true", help="also carry on every unfinished intent of the journal")
    parser.add_argument("--give-up-after", type=float, default=60.0, metavar="S",
                        help="seconds of retrying one intent in this run before it is reported unknown (%(default)s)")
    args, faults, intents, log = parse_command_line(parser)

    # How long does the server keep a key? Without that a retry horizon is a guess.
    try:
        policy = read_policy(args.url, args.token, args.timeout)
    except NoAnswer as error:
        print(f"right client: no answer from {args.url} ({error}); nothing sent", file=sys.stderr)
        return 1
    if not policy or not isinstance(policy.get("key_ttl_seconds"), int):
        print(f"right client: GET {args.url}/idempotency-policy gave no key_ttl_seconds (stage 6 publishes it;"
              " check --url and --token), so no retry can be known to fall inside the server's retention;"
              " nothing sent", file=sys.stderr)
        return 2
    retention_s = policy["key_ttl_seconds"]

    journal = Journal(args.journal)
    names = journal.unfinished() if args.resume else []
    counts, total_sends = {}, 0
    for intent in intents:
        # The key is made and on the disk before the first send; a known intent keeps its key.
        row = journal.remember(intent)
        if row["body"] != encoded(intent.body):
            # The same name for another transfer: sending it under this key would be answered 422.
            print(f"{intent.name}  conflict  the journal holds another body for this name: a new transfer"
                  " needs a new intent name, 0 sends", flush=True)
            counts["conflict"] = counts.get("conflict", 0) + 1
            continue
        if intent.name not in names:
            names.append(intent.name)

    for name in names:
        row = journal.row(name)
        if row["state"] not in UNFINISHED:
            state, text, sends = row["state"], f"{row['outcome']} (in the journal: not sent again)", 0
        else:
            state, text, sends = carry_out(args, journal, name, faults, retention_s, log)
            journal.settle(name, state, text)
        counts[state] = counts.get(state, 0) + 1
        total_sends += sends
        print(f"{name}  {state}  {text}, {sends} sends, key {row['key']}", flush=True)
    summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("done", "refused", "client-bug", "unknown", "conflict"))
    print(f"right client: {sum(counts.values())} intents: {summary}; {total_sends} sends this run"
          f" (keys used within {retention_s * RETENTION_SHARE:g} s of their first send)")
    return 1 if counts.get("unknown") or counts.get("client-bug") or counts.get("conflict") else 0


if __name__ == "__main__":
    sys.exit(main())
