#!/usr/bin/env python3
"""validate_junit.py: checks the grader's JUnit XML against the structure of the common JUnit XSD
(Jenkins' junit-10.xsd, also in junit.xsd beside this file):

  testsuites [name, tests, failures, errors, skipped, time]
    testsuite+ [name, tests (required), failures, errors, skipped, time]
      testcase* [name (required), classname, time]
        failure? [message, type] | skipped? [message]

and that the counts agree with the test cases. Usage: validate_junit.py junit.xml
"""
import sys
import xml.etree.ElementTree as ET


def fail(message):
    print(f"junit.xml: {message}", file=sys.stderr)
    sys.exit(1)


def integer(element, name):
    value = element.get(name)
    if value is None or not value.isdigit():
        fail(f"<{element.tag}> attribute {name}={value!r} is not a non-negative integer")
    return int(value)


def decimal(element, name):
    try:
        return float(element.get(name))
    except (TypeError, ValueError):
        fail(f"<{element.tag}> attribute {name}={element.get(name)!r} is not a number")


def main(path):
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        fail(f"the root is <{root.tag}>, not <testsuites>")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    suites = list(root)
    if not suites:
        fail("no <testsuite>")
    for suite in suites:
        if suite.tag != "testsuite":
            fail(f"<{suite.tag}> inside <testsuites>")
        if not suite.get("name"):
            fail("a <testsuite> has no name")
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for case in suite:
            if case.tag != "testcase":
                fail(f"<{case.tag}> inside <testsuite>")
            if not case.get("name") or not case.get("classname"):
                fail("a <testcase> has no name or classname")
            decimal(case, "time")
            counts["tests"] += 1
            children = [c.tag for c in case]
            if len(children) > 1 or any(t not in ("failure", "skipped") for t in children):
                fail(f"<testcase name={case.get('name')!r}> holds {children}")
            for child in case:
                if child.tag == "failure" and not child.get("message"):
                    fail("a <failure> has no message")
                counts["failures" if child.tag == "failure" else "skipped"] += 1
        for name, value in counts.items():
            if integer(suite, name) != value:
                fail(f"testsuite {suite.get('name')}: {name}={suite.get(name)} but it holds {value}")
            totals[name] += value
        integer(suite, "errors")
        decimal(suite, "time")
    for name, value in totals.items():
        if integer(root, name) != value:
            fail(f"testsuites: {name}={root.get(name)} but the suites hold {value}")
    decimal(root, "time")
    print(f"junit.xml: ok ({totals['tests']} test cases in {len(suites)} suites)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: validate_junit.py junit.xml")
    main(sys.argv[1])
