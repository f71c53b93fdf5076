#!/usr/bin/env python3
"""check_doc_references.py: every reference into the lab's text names a chapter and a heading that exist.

    python3 tests/docs/check_doc_references.py [REPO] [--grader BIN]
    python3 tests/docs/check_doc_references.py --self-test

The text is LAB.md and the chapters under docs/ (docs/teach/grader-checks-itself.md "The references are
checked"). A reference is written in one of four ways, and each is checked:

  1. a file and a heading in double quotes, as comments, the grader's reports and `--list` write it:
     docs/learn/stage-2-unique-key.md "Stage 2: a key table with a UNIQUE constraint" (inside a C++ string
     the quotes are escaped; a comment may break the heading over two lines; a DocRef writes
     {"docs/reference/plumbing.md", "Reliability"});
  2. a Markdown link between chapters, relative to the file that has it (LAB.md's
     [the bank](docs/reference/the-bank.md#the-bank)), or [above](#status-codes) in the same file;
  3. a link into the book the playground serves: /book/learn/stage-4-two-phase.html#try-to-break-it;
  4. the chapter of each stage server (stages/stage_servers.json "chapter"): the file must exist.

A heading matches word for word, with Markdown's backticks and emphasis left out. An anchor is the heading
as GitHub and pandoc's gfm_auto_identifiers make it (grader/base/doc_ref.cc:heading_anchor, the same rule).
The files read are those git tracks or would (a new file counts) that hold text; with --grader, the output of `grader --list`,
`grader --help` and every subcommand's --help is read too, so a reference the grader prints is checked
where a learner reads it. Prints each dangling reference as WHERE: REFERENCE: WHY; exits 1 if there is one.

--self-test builds a small tree in a temporary folder and proves the check fails on a dangling reference
of each kind and passes on the good ones.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TEXT_SUFFIXES = (".cc", ".h", ".py", ".sh", ".js", ".html", ".css", ".cmake", ".md", ".json", ".yaml",
                 ".lua", ".txt", ".in")
TEXT_NAMES = ("CMakeLists.txt", "Makefile", "run")
COMMENT = r"(?:\s*(?://+|#+|\*|--|;|>)?[ \t]*)"   # what starts a continued comment line
CHAPTER = r"(?P<file>(?<![\w/.-])(?:docs/[\w./-]+|LAB)\.md)"
QUOTED_REFERENCE = re.compile(
    CHAPTER + r"(?:\\?\"?,[ \t]*\\?\"|\s+\\?\"|\s*\n" + COMMENT + r"\\?\")"
    r"(?P<heading>(?:[^\"\\\n]|\n" + COMMENT + r")+?)\\?\"")
MARKDOWN_LINK = re.compile(r"\]\((?P<target>[^)\s]*?)(?:#(?P<anchor>[\w-]+))?\)")
BOOK_LINK = re.compile(r"/book/(?P<page>[\w./-]+?)\.html(?:#(?P<anchor>[\w-]+))?")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def plain(heading):
    """A heading as words: no backticks, emphasis or escapes, one space between words."""
    return " ".join(re.sub(r"[`*\\]", "", heading).split())


def anchor(heading):
    """GitHub's and pandoc's gfm_auto_identifiers: lower case; letters, digits, '-', '_' and spaces kept,
    spaces as '-'. (grader/base/doc_ref.cc:heading_anchor is the same rule in C++.)"""
    text = re.sub(r"[^\w\- ]", "", plain(heading).lower())
    return text.replace(" ", "-")


def headings_of(text):
    """The headings of a Markdown text outside code fences, in order."""
    found, in_fence = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (m := HEADING.match(line)):
            found.append(m.group(2))
    return found


class Book:
    """The text's chapters: for each file (from the root), its headings' words and its anchors."""

    def __init__(self, root, files):
        self.words, self.anchors = {}, {}
        for f in files:
            if f == "LAB.md" or (f.startswith("docs/") and f.endswith(".md")):
                heads = headings_of((root / f).read_text(encoding="utf-8"))
                self.words[f] = {plain(h) for h in heads}
                seen, anchors = {}, set()
                for h in heads:                      # a repeated heading's anchor gets -1, -2, ...
                    a = anchor(h)
                    anchors.add(a if a not in seen else "%s-%d" % (a, seen[a]))
                    seen[a] = seen.get(a, 0) + 1
                self.anchors[f] = anchors

    def heading_problem(self, file, heading):
        if file not in self.words:
            return "no such chapter"
        if plain(heading) not in self.words[file]:
            return "no heading with these words in %s" % file
        return None

    def anchor_problem(self, file, anchor_name):
        if file not in self.anchors:
            return "no such chapter"
        if anchor_name and anchor_name not in self.anchors[file]:
            return "no heading with this anchor in %s" % file
        return None


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def references_in(book, where, text, is_markdown, folder):
    """Each dangling reference in one text, as (where:line, reference, why)."""
    dangling = []
    for m in QUOTED_REFERENCE.finditer(text):
        heading = re.sub(r"\n" + COMMENT, " ", m.group("heading"))
        if why := book.heading_problem(m.group("file"), heading):
            dangling.append(("%s:%d" % (where, line_of(text, m.start())),
                             '%s "%s"' % (m.group("file"), plain(heading)), why))
    for m in BOOK_LINK.finditer(text):
        file = "docs/%s.md" % m.group("page")
        if why := book.anchor_problem(file, m.group("anchor")):
            dangling.append(("%s:%d" % (where, line_of(text, m.start())), m.group(0), why))
    if is_markdown:
        for m in MARKDOWN_LINK.finditer(text):
            target = m.group("target")
            if target and (not target.endswith(".md") or "://" in target):
                continue                              # another kind of file: check_file_references.py
            file = os.path.normpath(os.path.join(folder, target)) if target else where
            if why := book.anchor_problem(file, m.group("anchor")):
                dangling.append(("%s:%d" % (where, line_of(text, m.start())), m.group(0), why))
    return dangling


def check(root, files, outputs=()):
    """Every dangling reference in the tracked files and in the programs' outputs ((name, text) pairs)."""
    book = Book(root, files)
    dangling = []
    for f in files:
        path = root / f
        if not (f.endswith(TEXT_SUFFIXES) or os.path.basename(f) in TEXT_NAMES) or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        dangling += references_in(book, f, text, f.endswith(".md"), os.path.dirname(f))
        if f.endswith("stage_servers.json"):
            for row in json.loads(text).get("servers", []):
                if row.get("chapter") and row["chapter"] not in book.words:
                    dangling.append((f, row["chapter"], "the chapter of %s is no chapter" % row.get("name")))
    for name, text in outputs:
        dangling += references_in(book, name, text, False, "")
    return dangling


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        return [f for f in out.split("\0") if f and not f.startswith("tests/docs/fixtures/")]
    except (OSError, subprocess.CalledProcessError):     # not a git checkout (a starter copy): every file
        # under root but the build trees (generated; build/, build-asan/, ...)
        return [str(p.relative_to(root)) for p in root.rglob("*")
                if p.is_file() and ".git" not in p.parts and not p.relative_to(root).parts[0].startswith("build")]


def grader_outputs(grader):
    """What the grader prints that names the text: --list, --help and each subcommand's --help."""
    def run(*args):
        r = subprocess.run([grader, *args], capture_output=True, text=True, timeout=60)
        return r.stdout + r.stderr
    outputs = [("grader --list", run("--list")), ("grader --help", run("--help"))]
    # The subcommands are the help's lines "  NAME  what it does" under "Commands"/"commands".
    help_text = outputs[1][1]
    block = help_text.split("ommands", 1)[1] if "ommands" in help_text else ""
    for name in sorted(set(re.findall(r"^\s{2}([a-z][a-z-]+)\s{2,}", block, re.M))):
        outputs.append(("grader %s --help" % name, run(name, "--help")))
    return outputs


def self_test():
    """The check against a tree made to fail: each kind of dangling reference is named, the good ones are not.
    The tree's texts write its chapter folder as @/ (docs/learn/ when written) and its book as %/
    (/book/learn/), so that this file names no chapter that does not exist."""
    def tree_text(text):
        return text.replace("@/", "docs/" + "learn/").replace("%/", "/book/" + "learn/")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / tree_text("@/")).mkdir(parents=True)
        texts = {
            "@/a.md": "# Stage 1: the `naive` server\n\n## Try to break it\n\n```\n# not a heading\n```\n\n"
                      "## Try to break it\n\n[fine](#try-to-break-it-1) [bad](#not-here) [next](b.md#b)\n",
            "@/b.md": "# B\n",
            "LAB.md": "[one](@/a.md#stage-1-the-naive-server) [gone](@/c.md)\n",
            "code.cc": '// @/a.md "Stage 1: the naive server" and @/a.md "Try to\n'
                       '// break it" are here; @/a.md "Try to mend it" is not.\n'
                       'const DocRef ok{"@/b.md", "B"}, gone{"@/b.md", "C"};\n'
                       'std::string s = "@/a.md \\"not a heading\\"";  // %/a.html#try-to-break-it\n'
                       'cp "$root/LAB.md" "$dest/"  # no reference\n',
        }
        for name, text in texts.items():
            (root / tree_text(name)).write_text(tree_text(text))
        files = [tree_text(name) for name in texts]
        got = sorted(ref for _, ref, _ in check(root, files, [("out", tree_text("%/b.html#nope"))]))
        want = sorted(tree_text(ref) for ref in ['](#not-here)', '](@/c.md)', '@/a.md "Try to mend it"',
                                                 '@/b.md "C"', '@/a.md "not a heading"', "%/b.html#nope"])
        if got != want:
            print("FAIL  self-test: found %s, expected %s" % (got, want))
            return 1
        print("ok    self-test: the %d dangling references of each kind are found, the good ones pass" % len(want))
        return 0


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__.strip())
        return 0
    if "--self-test" in argv:
        return self_test()
    grader = argv[argv.index("--grader") + 1] if "--grader" in argv else None
    rest = [a for a in argv if a != "--grader" and a != grader]
    root = Path(rest[0] if rest else Path(__file__).resolve().parents[2]).resolve()
    files = tracked_files(root)
    outputs = grader_outputs(grader) if grader else []
    dangling = check(root, files, outputs)
    for where, ref, why in dangling:
        print("FAIL  %s: %s: %s" % (where, ref, why))
    chapters = sum(1 for f in files if f == "LAB.md" or (f.startswith("docs/") and f.endswith(".md")))
    if dangling:
        print("%d dangling references (the chapters: LAB.md and docs/; %d files)" % (len(dangling), chapters))
        return 1
    print("ok    every reference names an existing chapter and heading (%d chapters, %d files read%s)"
          % (chapters, len(files), ", and the grader's --list and --help" if grader else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
