#!/usr/bin/env python3
"""mutation_operators_test.py: the operators of `make mutation-score` (scripts/mutation/operators.py) make the
edits they promise, only where they promise them, and a mutant names its line for good.

    python3 tests/tools/mutation_operators_test.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "mutation"))
import operators  # noqa: E402


def edits(text, operator):
    return [m.after for m in operators.mutants_of("x.cc", text) if m.operator == operator]


class Operators(unittest.TestCase):
    def test_a_comparison_gets_its_boundary_moved(self):
        self.assertEqual(edits("  if (a <= b) f();", "relational"), ["  if (a < b) f();"])

    def test_a_template_or_an_include_is_no_comparison(self):
        self.assertEqual(edits("  std::vector<int> v;", "relational"), [])
        self.assertEqual(operators.mutants_of("x.cc", "#include <vector>"), [])

    def test_code_inside_a_string_or_a_comment_is_left_alone(self):
        self.assertEqual(edits('  f("a == b");  // x == y', "equality"), [])

    def test_sql_in_a_string_gets_its_conditions_edited(self):
        line = '      .prepare("DELETE FROM t WHERE id = ?1 AND fence = ?2")'
        self.assertIn('      .prepare("DELETE FROM t WHERE id = ?1 OR fence = ?2")', edits(line, "sql-logical"))
        self.assertIn('      .prepare("DELETE FROM t WHERE id = ?1")', edits(line, "sql-clause"))
        self.assertIn('      .prepare("DELETE FROM t WHERE id <> ?1 AND fence = ?2")', edits(line, "sql-relational"))

    def test_an_assignment_of_set_is_no_comparison(self):
        line = '      .prepare("UPDATE t SET fence = fence + 1, x = ?1 WHERE id = ?2")'
        self.assertEqual(edits(line, "sql-relational"), ['      .prepare("UPDATE t SET fence = fence + 1, x = ?1 WHERE id <> ?2")'])

    def test_a_schema_in_a_raw_string_is_sql(self):
        text = 'x(R"sql(\n  CREATE TABLE t (\n    UNIQUE (a, b, c)\n  );\n)sql");'
        self.assertEqual(sorted(edits(text, "sql-clause")),
                         ["    UNIQUE (a, b)", "    UNIQUE (a, c)", "    UNIQUE (b, c)"])

    def test_neighbouring_arguments_are_swapped_but_not_a_literal_index(self):
        self.assertEqual(edits("  claim(scope, lease, ttl);", "argument-swap"),
                         ["  claim(lease, scope, ttl);", "  claim(scope, ttl, lease);"])
        self.assertEqual(edits("      .bind(1, now_ms)", "argument-swap"), [])

    def test_a_condition_is_negated_and_a_negation_dropped(self):
        self.assertEqual(edits("  if (ok) return;", "negation"), ["  if (!(ok)) return;"])
        self.assertEqual(edits("  if (!row) return;", "negation"), ["  if (row) return;"])

    def test_a_statement_or_a_chain_link_is_deleted_but_not_a_declaration(self):
        self.assertEqual(edits("  tx.commit();", "statement-deletion"), [""])
        self.assertEqual(edits("      .bind(2, x)", "statement-deletion"), [""])
        self.assertEqual(edits("  auto tx = db.begin();", "statement-deletion"), [])

    def test_an_id_survives_an_edit_elsewhere_in_the_file(self):
        before = operators.mutants_of("x.cc", "  a();\n  if (a < b) f();")
        after = operators.mutants_of("x.cc", "  // a new comment\n  a();\n  if (a < b) f();")
        self.assertEqual({m.id for m in before}, {m.id for m in after})

    def test_apply_refuses_a_line_that_changed(self):
        m = operators.mutants_of("x.cc", "  if (a < b) f();")[0]
        self.assertIn("<=", operators.apply("  if (a < b) f();", m))
        with self.assertRaises(ValueError):
            operators.apply("  if (a > b) f();", m)


if __name__ == "__main__":
    unittest.main()
