#!/usr/bin/env python3
"""check_plain_words.py: what the grader tells a learner names no C++ of the reference stages.

    python3 tests/docs/check_plain_words.py [REPO]      the check: prints each offending text, exits 1 if one
    python3 tests/docs/check_plain_words.py --self-test  the check fails on the texts issue 50 found

A learner may write the server in any language (docs/learn/for-learners.md "For learners"): a hint that asks
"is find() written?" or "which of the two claim() stores as expires_at" sends a Python learner looking for a
function their server never had (issue 50, "Hints in C++ words"). The grader says what the server did and
what the contract asks, in words: "is that lookup written at all?", "which of the two the claim stores as
the key's expiry", "a timed wait that shutting down can cut short".

It reads every string literal of the grader's source (grader/*/*.cc and .h, comments left out) and flags one
that holds a call written as C++ (`name()`), a scope (`std::`, `a::b`), a member through a pointer (`->name`),
`nullptr`, or the words "stop token". What it cannot see: text built from pieces that are C++ only together.
The one allowance, by file and text, is a programmer's error that no server can cause (KNOWN below).
"""
import re
import sys
from pathlib import Path

LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
CHAR_LITERAL = re.compile(r"'(\\.|[^'\\])'")  # '"' and '\'' would open or close a string literal
CPP = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\(\)|\bstop token\b|std::|\w::\w|->\w|\bnullptr\b")

# A Target built with no address is the grader's own bug (grader/wire/target.cc), never a server's.
KNOWN = {("grader/wire/target.cc", "Target::attach needs at least one address")}


def offending(path_name, text):
    """The (line, literal) pairs of one file's text that name C++."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("//"):
            continue
        line = CHAR_LITERAL.sub("' '", line)
        for literal in LITERAL.finditer(line):
            words = literal.group(1)
            if CPP.search(words) and not any(path_name == f and known in words for f, known in KNOWN):
                found.append((number, words))
    return found


def check(repo):
    bad = 0
    for path in sorted(list(repo.glob("grader/*/*.cc")) + list(repo.glob("grader/*/*.h")) + [repo / "grader/main.cc"]):
        name = path.relative_to(repo).as_posix()
        for number, words in offending(name, path.read_text(encoding="utf-8")):
            print(f"{name}:{number}: C++ in what the grader says: \"{words}\"")
            bad += 1
    if bad:
        print(f"{bad} text(s) in C++ words: say what the server does, in words a learner of any language reads")
        return 1
    print("every string literal of the grader is free of C++ words")
    return 0


def self_test():
    """The texts issue 50 found (the lines 306accb took out, word for word), each flagged; plain ones, none."""
    cpp = ['    "the lookup after the failed INSERT return that row (is find() written?), so a repeat after the end is "',
           '                 "the two claim() stores as expires_at, and at the parentheses of the expiry condition",',
           '       .hint = "let the sweeper sleep between sweeps (a wait with the stop token), and loop only while a '
           'batch was full",']
    plain = ['run.hint("(is that lookup written at all?)");',
             'hint = "which of the two the claim stores as the key\'s expiry";',
             'text = "a timed wait that shutting down can cut short";',
             '// a comment may say find() and claim(): the learner does not read it']
    missed = [line for line in cpp if not offending("self-test.cc", line)]
    wrong = [line for line in plain if offending("self-test.cc", line)]
    for line in missed:
        print(f"self-test: not flagged: {line}")
    for line in wrong:
        print(f"self-test: flagged, though plain: {line}")
    if missed or wrong:
        return 1
    print(f"self-test: {len(cpp)} texts in C++ words flagged, {len(plain)} plain ones not")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    sys.exit(check(Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
