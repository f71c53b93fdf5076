#!/usr/bin/env python3
"""validate_results_json.py: checks a grader results.json against Gradescope's documented format.

Gradescope autograder specification ("Output format"): a JSON object with
  score (number, optional if every test has one), execution_time (number), output (string),
  visibility / stdout_visibility ("hidden", "after_due_date", "after_published", "visible"),
  tests: [{score, max_score (numbers), status ("passed"/"failed"), name, number, output (strings),
           visibility}].
The grader also writes a top-level max_score. Usage: validate_results_json.py results.json
"""
import json
import sys

VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def fail(message):
    print(f"results.json: {message}", file=sys.stderr)
    sys.exit(1)


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def main(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict):
        fail("the top level is not an object")
    for field in ("score", "max_score", "execution_time"):
        if not number(doc.get(field)):
            fail(f'"{field}" is missing or not a number')
    if not isinstance(doc.get("output"), str):
        fail('"output" is not a string')
    for field in ("visibility", "stdout_visibility"):
        if doc.get(field) not in VISIBILITIES:
            fail(f'"{field}" is not one of {sorted(VISIBILITIES)}')
    tests = doc.get("tests")
    if not isinstance(tests, list) or not tests:
        fail('"tests" is missing or empty')
    total = 0
    for i, test in enumerate(tests):
        where = f"tests[{i}]"
        if not isinstance(test, dict):
            fail(f"{where} is not an object")
        for field in ("score", "max_score"):
            if not number(test.get(field)):
                fail(f'{where}."{field}" is not a number')
        for field in ("name", "number", "output"):
            if not isinstance(test.get(field), str) or (field == "name" and not test[field]):
                fail(f'{where}."{field}" is not a (non-empty) string')
        if test.get("status") not in ("passed", "failed"):
            fail(f'{where}."status" is not "passed" or "failed"')
        if test.get("visibility") not in VISIBILITIES:
            fail(f'{where}."visibility" is not valid')
        if test["score"] > test["max_score"]:
            fail(f"{where} scores more than its max_score")
        total += test["score"]
    if total != doc["score"]:
        fail(f"score {doc['score']} is not the sum of the tests' scores ({total})")
    print(f"results.json: ok ({len(tests)} tests, score {doc['score']}/{doc['max_score']})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: validate_results_json.py results.json")
    main(sys.argv[1])
