#!/usr/bin/env python3
"""python_key_table_test.py: the Python learner's key table (learner-python/key_table.py) tells a repeat from a
bug. docs/learn/for-learners.md "The Python starter".

    python3 tests/learner/python_key_table_test.py

sqlite3.IntegrityError is raised for a UNIQUE violation and for NOT NULL, CHECK and foreign-key failures
alike; only the first is a repeat. Each test sets its state up directly on a fresh database.
"""
import os
import sqlite3
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(REPO, "learner-python"), os.path.join(REPO, "examples", "python")]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from key_table import KeyTable, KeyTaken, Scope  # noqa: E402
from plumbing import LabBank  # noqa: E402

NOW_MS, LEASE_MS, TTL_MS = 1_000_000, 30_000, 86_400_000


class KeyTableTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.keys = KeyTable(LabBank(os.path.join(self.folder.name, "lab.db")))
        self.scope = Scope(1, "/transfers", "rent-2026-03")

    def tearDown(self):
        self.folder.cleanup()

    def test_a_second_claim_of_one_key_is_a_repeat(self):
        self.keys.claim(self.scope, NOW_MS, "f1", LEASE_MS, TTL_MS)
        with self.assertRaises(KeyTaken):
            self.keys.claim(self.scope, NOW_MS, "f1", LEASE_MS, TTL_MS)

    def test_a_not_null_failure_is_a_bug_not_a_repeat(self):
        # created_at is NOT NULL: the INSERT fails with IntegrityError, and it must not read as "already processed".
        with self.assertRaises(sqlite3.IntegrityError) as failure:
            self.keys.claim(self.scope, None, "f1", LEASE_MS, TTL_MS)
        self.assertNotIsInstance(failure.exception.__cause__, KeyTaken)
        self.assertIn("NOT NULL", str(failure.exception))

    def test_the_same_key_of_another_client_is_another_key(self):
        self.keys.claim(self.scope, NOW_MS, "f1", LEASE_MS, TTL_MS)
        self.keys.claim(self.scope._replace(client_id=2), NOW_MS, "f1", LEASE_MS, TTL_MS)


if __name__ == "__main__":
    unittest.main()
