"""key_table.py: the Python learner's table of idempotency keys. docs/learn/for-learners.md "The Python starter".

The interface is the whole lab's from the start, as in the C++ learner (learner/key_table.h); what each
method does grows stage by stage, one region (# LAB BEGIN <stage>) per lesson. Before stage 2 there is no
table: claim() never finds a repeat.

    keys = KeyTable(bank)                                   # creates (and, stage by stage, extends) the table
    claim = keys.claim(scope, now_ms, fingerprint, lease_ms, ttl_ms)   # raises KeyTaken: a repeat
    row = keys.find(scope)                                  # the row a repeat collided with, or None
    claim = keys.take_over(row, now_ms, lease_ms)           # its lease ran out: fenced take-over, or None
    with bank.transaction() as db:
        if keys.holds(db, claim): ... move the money ...; keys.complete(db, claim, outcome, response)
    keys.release(claim)                                     # a failure that is not the request's fault
                                                            # (after the money's transaction has ended)
    keys.delete_expired(now_ms, batch)                      # the sweeper's work

The table grows as a real table grows: each stage adds its columns with a migration (add_column), and find()
reads the columns by name. Stage 2's UNIQUE column is the arbiter from then on: of two requests with one
key exactly one INSERT succeeds. No SELECT first, no INSERT OR IGNORE (docs/teach/wrong-turns.md "Wrong turns").

Thread safety: safe from any handler thread; every decision is one statement in one write transaction.
"""
import sqlite3
from typing import NamedTuple

IN_PROGRESS, COMPLETED = "in_progress", "completed"  # the two states of a key's row


class KeyTaken(Exception):
    """claim() found the key taken: this request is a repeat."""


class Scope(NamedTuple):
    """Whose key: the client, the endpoint ("/transfers" or "/payouts") and the key the client sent."""
    client_id: int
    endpoint: str
    key: str

    def stored_key(self):
        """What the table's UNIQUE column holds for this scope."""
        # LAB BEGIN 6 the key's scope: unique per (client, endpoint, key), so the UNIQUE column holds all three
        # Unambiguous: neither a client id nor an endpoint contains a space, so only the key may.
        return f"{self.client_id} {self.endpoint} {self.key}"
        # LAB ELSE
        return self.key
        # LAB END


class Claim(NamedTuple):
    """The right to finish the request of one key: valid while the row's fence still equals this fence.
    It names its row by id, never by key (docs/learn/stage-4-two-phase.md "Stage 4: in_progress, then completed")."""
    id: int
    fence: int


# LAB BEGIN 6 expired: past its retention, and no live claim holds it (:now is the lab clock, ms)
EXPIRED = "expires_at <= :now AND (state = 'completed' OR locked_until <= :now)"
# LAB END


def is_unique_violation(error):
    """sqlite3 raises IntegrityError for every constraint that fails: UNIQUE, and also NOT NULL, CHECK and
    FOREIGN KEY. Only UNIQUE means "this key is taken"; any other is a bug, and answering it "already
    processed" would hide it behind a success. SQLite's own error name says which (Python 3.11 on), and its
    message names the constraint on every version."""
    name = getattr(error, "sqlite_errorname", None)
    return name == "SQLITE_CONSTRAINT_UNIQUE" if name else str(error).startswith("UNIQUE constraint failed")


def add_column(db, definition):
    """Adds a column unless the table has it already: a server restarted on the same file runs this again."""
    name = definition.split(" ")[0]
    if not db.execute("SELECT 1 FROM pragma_table_info('idempotency_keys') WHERE name = ?", (name,)).fetchone():
        db.execute(f"ALTER TABLE idempotency_keys ADD COLUMN {definition}")


class KeyTable:
    def __init__(self, bank):
        self.bank = bank  # its transaction() and query() hold the bank's lock (stage1_server.Bank)
        with bank.transaction() as db:
            # LAB BEGIN 2 the key table, whose UNIQUE column decides which request with a key is the first
            db.execute("CREATE TABLE IF NOT EXISTS idempotency_keys (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                       "key TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL)")
            # LAB ELSE
            pass  # no key table yet
            # LAB END
            # LAB BEGIN 3 a column for the fingerprint of the first request's body
            add_column(db, "fingerprint TEXT NOT NULL DEFAULT ''")
            # LAB END
            # LAB BEGIN 4 columns for the two phases (state, fence, lease) and for the outcome
            for column in ("state TEXT NOT NULL DEFAULT 'in_progress'", "fence INTEGER NOT NULL DEFAULT 1",
                           "locked_until INTEGER NOT NULL DEFAULT 0", "status INTEGER", "entry_id INTEGER",
                           "problem_type TEXT", "problem_detail TEXT"):
                add_column(db, column)
            # LAB END
            # LAB BEGIN 5 columns for the response first sent, byte for byte
            for column in ("response_status INTEGER", "response_content_type TEXT", "response_body BLOB"):
                add_column(db, column)
            # LAB END
            # LAB BEGIN 6 a column for the key's retention, indexed for the sweeper
            add_column(db, "expires_at INTEGER NOT NULL DEFAULT 0")
            db.execute("CREATE INDEX IF NOT EXISTS idempotency_keys_by_expiry ON idempotency_keys (expires_at)")
            # LAB END

    def claim(self, scope, now_ms, fingerprint, lease_ms, ttl_ms):
        """Takes the key in a transaction of its own, committed at once: the key is taken before any money
        moves. Raises KeyTaken when it is taken already."""
        claim = Claim(0, 1)
        with self.bank.transaction() as db:
            # LAB BEGIN 6 an expired row of this scope is gone already, even if the sweeper has not reached it
            db.execute(f"DELETE FROM idempotency_keys WHERE key = :key AND {EXPIRED}",
                       {"key": scope.stored_key(), "now": now_ms})
            # LAB END
            # LAB BEGIN 2 take the key: for a key already taken this INSERT fails on UNIQUE, and that is the answer
            try:
                row_id = db.execute("INSERT INTO idempotency_keys (key, created_at) VALUES (?, ?)",
                                    (scope.stored_key(), now_ms)).lastrowid
            except sqlite3.IntegrityError as error:
                if is_unique_violation(error):
                    raise KeyTaken() from error
                raise  # another constraint failed: a bug, answered 500 (see is_unique_violation)
            claim = Claim(row_id, 1)
            # LAB ELSE
            pass  # no key table yet: every request is new
            # LAB END
            # LAB BEGIN 3 remember what the first request looked like
            db.execute("UPDATE idempotency_keys SET fingerprint = ? WHERE id = ?", (fingerprint, claim.id))
            # LAB END
            # LAB BEGIN 4 the key is in progress, held by this claim until its lease runs out
            db.execute("UPDATE idempotency_keys SET state = 'in_progress', fence = 1, locked_until = ? WHERE id = ?",
                       (now_ms + lease_ms, claim.id))
            # LAB END
            # LAB BEGIN 6 the key expires after --key-ttl
            db.execute("UPDATE idempotency_keys SET expires_at = ? WHERE id = ?", (now_ms + ttl_ms, claim.id))
            # LAB END
        return claim

    def find(self, scope):
        """The row of this key as a dict of its columns (SELECT *: each stage adds columns), or None."""
        # LAB BEGIN 2 the row of this key
        rows = self.bank.query("SELECT * FROM idempotency_keys WHERE key = ?", scope.stored_key())
        return dict(rows[0]) if rows else None
        # LAB ELSE
        return None
        # LAB END

    def take_over(self, row, now_ms, lease_ms):
        """A claim whose lease ran out, taken over with the fence bumped; None if another request was first."""
        # LAB BEGIN 4 a claim whose lease ran out: take it over, bumping the fence, only if nobody else did
        with self.bank.transaction() as db:
            taken = db.execute("UPDATE idempotency_keys SET fence = fence + 1, locked_until = ? WHERE id = ? "
                               "AND fence = ? AND state = 'in_progress' AND locked_until <= ?",
                               (now_ms + lease_ms, row["id"], row["fence"], now_ms)).rowcount == 1
        return Claim(row["id"], row["fence"] + 1) if taken else None
        # LAB ELSE
        return None
        # LAB END

    def holds(self, db, claim):
        """Is the claim still ours? Asked inside the money's transaction, which holds SQLite's write lock, so
        no take-over slips in between this question and complete()."""
        # LAB BEGIN 4 is the claim still ours? The fence says, inside the money's transaction
        row = db.execute("SELECT fence, state FROM idempotency_keys WHERE id = ?", (claim.id,)).fetchone()
        return row is not None and row["fence"] == claim.fence and row["state"] == IN_PROGRESS
        # LAB ELSE
        return True
        # LAB END

    def complete(self, db, claim, outcome, response):
        """Marks the key completed with its outcome (201 and the entry, or a refusal's Problem) and the
        response first sent ((status, content type, bytes)), in the money's transaction."""
        # LAB BEGIN 4 completed, with its outcome, in the money's transaction
        status, entry_id, problem_type, problem_detail = (
            (outcome.status, None, outcome.slug, outcome.detail) if hasattr(outcome, "slug")
            else (201, outcome["id"], None, None))
        changed = db.execute("UPDATE idempotency_keys SET state = 'completed', status = ?, entry_id = ?, "
                             "problem_type = ?, problem_detail = ? WHERE id = ? AND fence = ? AND state = 'in_progress'",
                             (status, entry_id, problem_type, problem_detail, claim.id, claim.fence)).rowcount
        # Invariant: the caller asked holds() in this same transaction, so exactly one row changed.
        if changed != 1:
            raise RuntimeError("completed a key whose claim was not held")
        # LAB ELSE
        pass  # no states yet: nothing to complete
        # LAB END
        # LAB BEGIN 5 keep the response itself, for every repeat
        db.execute("UPDATE idempotency_keys SET response_status = ?, response_content_type = ?, "
                   "response_body = ? WHERE id = ?", (*response, claim.id))
        # LAB END

    def release(self, claim):
        """The request failed for a reason that is not its own (503, 500): free the key for a retry. Called
        after the money's transaction has ended. Never raises: it runs while another error is answered."""
        # LAB BEGIN 4 the request failed for a reason that is not its own: free the key for a retry
        # If the database refuses even this, the claim waits out its lease: later, never wrong.
        try:
            with self.bank.transaction() as db:
                db.execute("DELETE FROM idempotency_keys WHERE id = ? AND fence = ? AND state = 'in_progress'",
                           claim)
        except Exception as error:  # noqa: BLE001 (any failure here only delays the retry)
            print(f"release of key row {claim.id} failed: {error!r} (its lease will free it)", flush=True)
        # LAB ELSE
        pass  # no states yet: nothing to release
        # LAB END

    def delete_expired(self, now_ms, batch):
        """Deletes expired rows, one bounded batch per transaction; returns how many it deleted."""
        # LAB BEGIN 6 delete expired rows, one bounded batch per transaction
        with self.bank.transaction() as db:
            return db.execute(f"DELETE FROM idempotency_keys WHERE id IN (SELECT id FROM idempotency_keys "
                              f"WHERE {EXPIRED} LIMIT :batch)", {"now": now_ms, "batch": batch}).rowcount
        # LAB ELSE
        return 0
        # LAB END
