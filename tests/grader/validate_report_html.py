#!/usr/bin/env python3
"""validate_report_html.py: checks a page the grader wrote with --html (grader/report/report_html.h), with the
standard library's html.parser only.

  validate_report_html.py FILE --matrix   table#matrix; at least one section.failed-check whose svg timeline
                                          marks an attempt (class="attempt anomaly"); every section has one
                                          svg and an a.first-violation whose target is in the page
  validate_report_html.py FILE --day      table#day-damage with a row per server, svg#day-chart
  validate_report_html.py FILE --class    grader class's summary (grader/report/class_summary.h): table#class
                                          with a tr[data-learner] per learner, each with one td[data-verdict];
                                          links may also be relative, to a file that exists beside the page
                                          (a learner's report), never up (..) or out (/, a scheme)

Always: the page is self-contained (no script or style fetched, no src or href leaving it: no "http:", no
"//"), but for a.teaches, a link to the chapter in the local book (a file:// page under book/ that exists,
with an anchor); and its ids are unique. Exits 1 with one line per problem.
"""
import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Page(HTMLParser):
    def __init__(self, local_links_in=None):
        super().__init__(convert_charrefs=True)
        self.local_links_in = local_links_in  # --class: the page's folder, where relative links may go
        self.learners = []  # --class: each tr[data-learner]: [name, its td[data-verdict] values]
        self.local_links = 0
        self.book_links = 0  # a.teaches: links to the local book
        self.stack = []  # open elements: (tag, attrs)
        self.ids = []
        self.problems = []
        self.tables = {}  # id -> number of td[data-verdict] (matrix) or of tbody rows (day)
        self.sections = []  # each failed check: {"check", "stage", "svgs", "anomalies", "links"}
        self.day_chart = False
        self.in_tbody = False

    def inside(self, predicate):
        return any(predicate(tag, attrs) for tag, attrs in self.stack)

    def table_id(self):
        for tag, attrs in reversed(self.stack):
            if tag == "table":
                return attrs.get("id")
        return None

    def element(self, tag, attrs):
        attrs = {k: (v or "") for k, v in attrs}
        if "id" in attrs:
            self.ids.append(attrs["id"])
        for name in ("src", "href", "xlink:href"):
            value = attrs.get(name)
            if name == "href" and value is not None and self.local_link(value):
                continue
            if name == "href" and value is not None and "teaches" in attrs.get("class", "").split():
                self.book_link(value)
                continue
            if value is not None and ("http:" in value or "https:" in value or value.startswith("//")
                                      or (name != "src" and not value.startswith("#"))):
                self.problems.append(f"<{tag} {name}=\"{value}\"> leaves the page")
            if name == "src" and value is not None:
                self.problems.append(f"<{tag} src=\"{value}\">: the page must not load anything")
        if tag == "link":
            self.problems.append("<link>: the page must not load anything")
        classes = attrs.get("class", "").split()
        section = self.sections[-1] if self.sections and self.inside(
            lambda t, a: t == "section" and "failed-check" in a.get("class", "").split()) else None
        if tag == "section" and "failed-check" in classes:
            self.sections.append({"check": attrs.get("data-check"), "stage": attrs.get("data-stage"),
                                  "svgs": 0, "anomalies": 0, "links": []})
        elif section is not None:
            if tag == "svg":
                section["svgs"] += 1
            if tag == "g" and "attempt" in classes and "anomaly" in classes:
                section["anomalies"] += 1
            if tag == "a" and "first-violation" in classes:
                section["links"].append(attrs.get("href", ""))
        if tag == "tr" and "data-learner" in attrs and self.table_id() == "class":
            self.learners.append([attrs["data-learner"], []])
        if tag == "td" and "data-verdict" in attrs and self.table_id() == "class" and self.learners:
            self.learners[-1][1].append(attrs["data-verdict"])
        if tag == "table" and "id" in attrs:
            self.tables[attrs["id"]] = 0
        if tag == "td" and "data-verdict" in attrs and self.table_id() == "matrix":
            self.tables["matrix"] += 1
            if attrs["data-verdict"] not in ("pass", "fail", "skip"):
                self.problems.append(f"td[data-verdict={attrs['data-verdict']}] is not pass, fail or skip")
        if tag == "tr" and self.table_id() == "day-damage" and self.inside(lambda t, a: t == "tbody"):
            self.tables["day-damage"] += 1
        if tag == "svg" and attrs.get("id") == "day-chart":
            self.day_chart = True
        return attrs

    def book_link(self, href):
        """a.teaches: a link to the chapter in the book `make book` wrote on this machine: a file:// URL to a
        page under a book/ folder that exists, with an anchor."""
        page, _, anchor = href.partition("#")
        path = unquote(page[len("file://"):]) if page.startswith("file://") else None
        if path is None or "/book/" not in path or not anchor:
            self.problems.append(f"<a class=\"teaches\" href=\"{href}\"> is not a chapter's heading in the local book")
        elif not os.path.isfile(path):
            self.problems.append(f"<a class=\"teaches\" href=\"{href}\"> names a page that is not there")
        self.book_links += 1

    def local_link(self, href):
        """--class: a relative link to a file beside the page (a learner's report) is allowed."""
        if self.local_links_in is None or ":" in href or href.startswith(("/", "#")):
            return False
        path = unquote(href)
        if ".." in path.split("/"):
            self.problems.append(f"<a href=\"{href}\"> goes up, out of the output folder")
        elif not os.path.isfile(os.path.join(self.local_links_in, path)):
            self.problems.append(f"<a href=\"{href}\"> names a file that is not there")
        self.local_links += 1
        return True

    def handle_starttag(self, tag, attrs):
        attrs = self.element(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.element(tag, attrs)

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                return
        self.problems.append(f"</{tag}> closes nothing")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("--matrix", "--day", "--class"):
        sys.exit(__doc__)
    path, mode = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    page = Page(os.path.dirname(os.path.abspath(path)) if mode == "--class" else None)
    page.feed(text)
    page.close()
    problems = list(page.problems)
    if not text.startswith("<!DOCTYPE html>"):
        problems.append("the page does not start with <!DOCTYPE html>")
    duplicates = sorted({i for i in page.ids if page.ids.count(i) > 1})
    if duplicates:
        problems.append(f"ids used more than once: {duplicates[:5]}")
    if mode == "--matrix":
        if page.tables.get("matrix", 0) == 0:
            problems.append("no table#matrix with td[data-verdict] cells")
        if not page.sections:
            problems.append("no section.failed-check")
        for s in page.sections:
            where = f"section.failed-check[data-check={s['check']}][data-stage={s['stage']}]"
            if not s["check"] or not s["stage"]:
                problems.append(f"{where}: data-check or data-stage missing")
            if s["svgs"] != 1:
                problems.append(f"{where}: {s['svgs']} svg timelines, not 1")
            if len(s["links"]) != 1:
                problems.append(f"{where}: {len(s['links'])} a.first-violation, not 1")
            for href in s["links"]:
                if href[1:] not in page.ids:
                    problems.append(f"{where}: a.first-violation goes to {href}, which is not in the page")
        if not any(s["anomalies"] > 0 for s in page.sections):
            problems.append('no failed check\'s timeline has a g class="attempt anomaly"')
    elif mode == "--class":
        if not page.learners:
            problems.append("no table#class with a tr[data-learner] per learner")
        for name, verdicts in page.learners:
            if len(verdicts) != 1 or verdicts[0] not in ("pass", "fail", "error"):
                problems.append(f"tr[data-learner={name}]: td[data-verdict] {verdicts}, not one of pass, fail, error")
        if page.learners and page.local_links == 0:
            problems.append("no link to a learner's report")
    else:
        if page.tables.get("day-damage", 0) == 0:
            problems.append("no table#day-damage with a row per server")
        if not page.day_chart:
            problems.append("no svg#day-chart")
    for p in problems:
        print(f"{path}: {p}")
    if problems:
        sys.exit(1)
    print(f"{path}: ok ({len(page.sections)} failed-check sections, {len(page.ids)} ids, {len(text)} bytes)")


if __name__ == "__main__":
    main()
