#!/usr/bin/env python3
"""lab_regions_test.py: scripts/lab-regions.py refuses bad markers with their line numbers, and keeps the
right part of each region for each stage. docs/learn/for-learners.md "For learners".

    python3 tests/tools/lab_regions_test.py scripts/lab-regions.py
"""
import os
import subprocess
import sys
import tempfile
import unittest

TOOL = sys.argv.pop(1) if len(sys.argv) > 1 else "scripts/lab-regions.py"

SAMPLE = """\
int f() {
  int x = 1;
  // LAB BEGIN 2 add two
  x += 2;
  // LAB ELSE
  x += 0;
  // LAB END
  # LAB BEGIN 4 times ten
  x *= 10;
  # LAB END
  return x;
}
"""


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


class LabRegions(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.dir.name, "src")
        os.makedirs(self.src)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, text, name="f.cc"):
        path = os.path.join(self.src, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def refused(self, text, expected):
        path = self.write(text)
        result = run("check", path)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(expected, result.stderr)

    def test_nested_region_is_refused_with_both_lines(self):
        self.refused("// LAB BEGIN 2 a\n// LAB BEGIN 3 b\n// LAB END\n// LAB END\n",
                     "f.cc:2: LAB BEGIN inside the region opened at line 1")

    def test_unbalanced_markers_are_refused(self):
        self.refused("x\n// LAB BEGIN 2 a\ny\n", "f.cc:2: LAB BEGIN without LAB END")
        self.refused("x\n// LAB END\n", "f.cc:2: LAB END without LAB BEGIN")
        self.refused("// LAB ELSE\n", "f.cc:1: LAB ELSE outside a region")
        self.refused("// LAB BEGIN 2 a\n// LAB ELSE\n// LAB ELSE\n// LAB END\n",
                     "f.cc:3: a second LAB ELSE in the region opened at line 1")

    def test_a_begin_needs_a_stage_and_a_name(self):
        self.refused("// LAB BEGIN 7 late\n// LAB END\n", "f.cc:1: expected 'LAB BEGIN <stage 2-6> <name>'")
        self.refused("// LAB BEGIN 3\n// LAB END\n", "f.cc:1: expected")

    def keep_with_line_directives(self, upto):
        self.write(SAMPLE)
        out = os.path.join(self.dir.name, f"out{upto}")
        result = run("keep", "--upto", str(upto), self.src, out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "f.cc")) as f:
            return f.read()

    def keep(self, upto):
        """The kept text without its #line directives."""
        return "".join(line for line in self.keep_with_line_directives(upto).splitlines(keepends=True)
                       if not line.startswith("#line "))

    def test_keep_names_each_line_of_the_source_where_it_stands_there(self):
        # A compiler error in the copy must name the learner's file and line: each line that follows a
        # "#line N" directive is line N (and the next ones N+1, ...) of the source.
        source = SAMPLE.splitlines(keepends=True)
        for upto in (1, 2, 6):
            text = self.keep_with_line_directives(upto)
            self.assertTrue(text.startswith(f'#line 1 "{os.path.join(self.src, "f.cc")}"\n'), text)
            number = None
            for line in text.splitlines(keepends=True):
                if line.startswith("#line "):
                    number = int(line.split()[1])
                    continue
                self.assertEqual(line, source[number - 1], f"--upto {upto}: line {number}")
                number += 1

    def test_keep_takes_the_lessons_up_to_the_stage_and_the_else_parts_after(self):
        self.assertEqual(self.keep(1), "int f() {\n  int x = 1;\n  x += 0;\n  return x;\n}\n")
        self.assertEqual(self.keep(2), "int f() {\n  int x = 1;\n  x += 2;\n  return x;\n}\n")
        self.assertEqual(self.keep(6), "int f() {\n  int x = 1;\n  x += 2;\n  x *= 10;\n  return x;\n}\n")

    def test_starter_leaves_todos_naming_the_stage_and_its_section(self):
        self.write(SAMPLE)
        out = os.path.join(self.dir.name, "starter")
        self.assertEqual(run("starter", self.src, out).returncode, 0)
        text = open(os.path.join(out, "f.cc")).read()
        self.assertIn('  // TODO(stage 2): add two. docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint".\n  x += 0;\n',
                      text)
        self.assertIn('  # TODO(stage 4): times ten. docs/learn/stage-4-two-phase.md "Stage 4: in_progress, then completed".\n  return x;', text)
        self.assertNotIn("x += 2", text)
        self.assertNotIn("LAB BEGIN", text)

    def test_a_file_without_markers_is_copied_unchanged(self):
        self.write("plain text\n# no markers\n", "notes.txt")
        out = os.path.join(self.dir.name, "plain")
        self.assertEqual(run("keep", "--upto", "3", self.src, out).returncode, 0)
        self.assertEqual(open(os.path.join(out, "notes.txt")).read(), "plain text\n# no markers\n")


if __name__ == "__main__":
    unittest.main(verbosity=1)
