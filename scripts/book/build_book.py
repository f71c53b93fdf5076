#!/usr/bin/env python3
"""build_book.py: the lab's text as a small static website (`make book`). docs/teach/the-playground.md "The book".

    python3 scripts/book/build_book.py [--out DIR] [--repo ROOT] [--skip-without-pandoc]

Renders LAB.md as DIR/index.html and every chapter docs/<group>/<name>.md as DIR/<group>/<name>.html, with
pandoc (Debian's pandoc; `scripts/ensure-deps.sh book` installs it), reading the Markdown as GitHub does
(-f gfm), so every heading's anchor is the one GitHub makes and grader/base/doc_ref.cc:heading_anchor
computes. Each page has the chapter list (from LAB.md's "The chapters", the one list of them), its own table
of contents, and the previous and next chapter in that list's order. Links between chapters become links
between pages (scripts/book/links.lua); the few repository files a chapter links to are copied under
DIR/files/. Nothing comes from the network: the style is scripts/book/book.css, copied beside the pages.
The default DIR is build/book, where the grader's HTML report (grader/report/report_html.h) and the
playground (--book-dir) look for it. Each file is replaced whole, so a reader never finds the book half made.
Prints one line when done; exits 1 if pandoc fails on a page (or is missing: 77 with --skip-without-pandoc,
ctest's skip).
"""
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHAPTER_ROW = re.compile(r"^\| \[([^\]]+)\]\((docs/[\w/.-]+\.md)\) \|")
GROUP_LINE = re.compile(r"^\*\*(.+?)\*\*")


def book_path(repo_path):
    """Where a page of the repository is in the book: LAB.md -> index.html, docs/<group>/<name>.md ->
    <group>/<name>.html."""
    return "index.html" if repo_path == "LAB.md" else repo_path[len("docs/"):-len(".md")] + ".html"


def relative(from_page, to_page):
    return os.path.relpath(to_page, os.path.dirname(from_page) or ".")


def chapter_list(lab_md):
    """[(group, [(title, repo path)])] from LAB.md's section "The chapters", in its order."""
    section = lab_md.split("\n## The chapters\n", 1)[1].split("\n## ", 1)[0]
    groups = []
    for line in section.splitlines():
        if m := GROUP_LINE.match(line):
            groups.append((m.group(1), []))
        elif (m := CHAPTER_ROW.match(line)) and groups:
            groups[-1][1].append((m.group(1), m.group(2)))
    return groups


def navigation(page, groups):
    """The chapter list as it is linked from `page`, the page itself marked."""
    out = ['<nav class="chapters" aria-label="Chapters"><p><a href="%s">The Idempotency Key Lab</a></p>'
           % relative(page, "index.html")]
    for group, chapters in groups:
        out.append("<p>%s</p><ul>" % html.escape(group))
        for title, repo_path in chapters:
            target = book_path(repo_path)
            current = ' aria-current="page"' if target == page else ""
            out.append('<li><a href="%s"%s>%s</a></li>' % (relative(page, target), current, html.escape(title)))
        out.append("</ul>")
    return "".join(out) + "</nav>"


def prev_next(page, order):
    """Links to the chapters before and after `page` in the list's order."""
    if page not in order:
        return ""
    at = order.index(page)
    links = []
    if at > 0:
        links.append('<a rel="prev" href="%s">&larr; %s</a>' % (relative(page, order[at - 1][0]), order[at - 1][1]))
    if at + 1 < len(order):
        links.append('<a rel="next" href="%s">%s &rarr;</a>' % (relative(page, order[at + 1][0]), order[at + 1][1]))
    return '<nav class="prev-next">%s</nav>' % " ".join(links)


def copy_file(source, target):
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, str(target) + ".new")
    os.replace(str(target) + ".new", target)


def first_heading(text):
    m = re.search(r"^# (.+)$", text, re.M)
    return re.sub(r"[`*]", "", m.group(1)).strip() if m else "The Idempotency Key Lab"


def render(repo, out, tmp, repo_path, groups, order):
    page = book_path(repo_path)
    text = (repo / repo_path).read_text(encoding="utf-8")
    before, after, files = (Path(tmp) / (page.replace("/", "_") + suffix) for suffix in (".nav", ".end", ".files"))
    before.write_text(navigation(page, groups), encoding="utf-8")
    after.write_text(prev_next(page, [(p, html.escape(t)) for p, t in order]), encoding="utf-8")
    target = out / page
    target.parent.mkdir(parents=True, exist_ok=True)
    command = ["pandoc", "-f", "gfm", "-t", "html5", "--standalone", "--toc", "--toc-depth=2",
               "--lua-filter", str(HERE / "links.lua"), "-M", "source=" + repo_path, "-M", "files=" + str(files),
               "-M", "lang=en", "-M", "pagetitle=" + first_heading(text), "--css", relative(page, "book.css"),
               "--include-before-body", str(before), "--include-after-body", str(after),
               "-o", str(target) + ".new", str(repo / repo_path)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        os.replace(str(target) + ".new", target)   # a reader never sees half a page
    linked = files.read_text(encoding="utf-8").split() if files.exists() else []
    return repo_path, result.returncode, result.stderr.strip(), linked


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__.strip())
        return 0
    repo = Path(argv[argv.index("--repo") + 1] if "--repo" in argv else HERE.parents[1]).resolve()
    out = Path(argv[argv.index("--out") + 1] if "--out" in argv else repo / "build" / "book").resolve()
    if shutil.which("pandoc") is None:
        print("book: pandoc is missing (scripts/ensure-deps.sh book installs it)", file=sys.stderr)
        return 77 if "--skip-without-pandoc" in argv else 1
    started = time.monotonic()
    lab_md = (repo / "LAB.md").read_text(encoding="utf-8")
    groups = chapter_list(lab_md)
    order = [("index.html", "The Idempotency Key Lab")] + [(book_path(p), t) for _, cs in groups for t, p in cs]
    pages = ["LAB.md"] + sorted(str(p.relative_to(repo)) for p in (repo / "docs").rglob("*.md"))
    missing = [p for p in pages[1:] if book_path(p) not in dict(order)]
    if missing:
        print("book: LAB.md's \"The chapters\" does not list %s" % ", ".join(missing), file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    before = {p for p in out.rglob("*") if p.is_file()}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda p: render(repo, out, tmp, p, groups, order), pages))
    failed = [(p, err) for p, code, err, _ in results if code != 0]
    for p, err in failed:
        print("book: pandoc failed on %s: %s" % (p, err), file=sys.stderr)
    copy_file(HERE / "book.css", out / "book.css")
    linked = sorted({f for _, _, _, files in results for f in files})
    for f in linked:
        if not (repo / f).is_file():
            print("book: a chapter links to %s, which is no file" % f, file=sys.stderr)
            failed.append((f, "no file"))
            continue
        copy_file(repo / f, out / "files" / f)
    # Written in place, each file replaced whole, so the playground and a report's links never find the
    # book missing while it is remade; what this run did not write (a chapter removed since) goes.
    written = {out / book_path(p) for p in pages} | {out / "book.css"} | {out / "files" / f for f in linked}
    for stale in before - written:
        stale.unlink()
    print("book: %d pages and %d linked files in %s (%.1f s)" % (len(pages), len(linked), out,
                                                                   time.monotonic() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
