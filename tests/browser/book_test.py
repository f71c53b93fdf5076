#!/usr/bin/env python3
"""book_test.py: the book (`make book`, docs/teach/the-playground.md "The book") as the playground serves it,
in a real browser: every page is reachable from /book/, every link resolves, and nothing comes from the
network.

    book_test.py --playground BIN --book-dir DIR [--outdir DIR]

Starts the real playground with --book-dir DIR and crawls the book from /book/ in headless chromium:
  - every page the crawl reaches loads (HTTP 200) without a JS error or a failed request, and asks for
    nothing beyond the playground (no font, style or script from the network);
  - every <a href> of every page resolves: a page of the book answers 200, and its #fragment is the id of
    an element of that page; a link to the playground (/?scenario=NAME...) names a scenario of
    GET /api/scenarios; a repository file the book copied (files/...) answers 200; a link to another site
    (a reference in "Real world") is only counted, never fetched;
  - the crawl reaches every page DIR holds (no chapter left out of the navigation);
  - each guided tour's "Read:" link (GET /api/scenarios) is a page and heading of the book, shown on the
    playground's page;
  - a path out of the book's folder (.., its encodings, a hidden file, an absolute path) is a 404 problem;
  - on the stage 4 chapter, every code block keeps its lines (white-space: pre; an ASCII drawing wider than
    the column scrolls, it does not wrap), and a screenshot is saved: OUTDIR/book-stage-4.png.
Exit 77 without chromium.
"""
import argparse
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
from checklist import Checklist, exit_cleanly_on_sigterm, exit_if_no_chromium, expect  # noqa: E402
from playground_test import Playground  # noqa: E402

CHAPTER_OF_THE_SCREENSHOT = "docs/learn/stage-4-two-phase.md"   # the screenshot is of its page in the book
STAGE_4 = CHAPTER_OF_THE_SCREENSHOT[len("docs/"):-len(".md")] + ".html"
LINKS_JS = "[...document.querySelectorAll('a[href]')].map(a => a.href)"
IDS_JS = "[...document.querySelectorAll('[id]')].map(e => e.id)"


def status_of(url):
    try:
        with urllib.request.urlopen(url, timeout=15) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def crawl(browser, playground):
    """Every page reachable from /book/: {page url: {"ids": [...], "links": [...]}}, and the problems seen."""
    origin = playground.url.rstrip("/")
    pages, problems, queue = {}, [], [origin + "/book/"]
    page = browser.new_page()
    while queue:
        url = queue.pop(0)
        if url in pages:
            continue
        status = status_of(url)
        if status != 200:
            problems.append(f"{url}: HTTP {status}")
            pages[url] = {"ids": [], "links": []}
            continue
        errors_before, failed_before = len(page.errors), len(page.failed_requests)
        page.goto(url)
        pages[url] = {"ids": page.evaluate(IDS_JS), "links": page.evaluate(LINKS_JS)}
        problems += [f"{url}: {e}" for e in page.errors[errors_before:]]
        problems += [f"{url}: request failed: {u} {why}" for u, why in page.failed_requests[failed_before:]]
        for link in pages[url]["links"]:
            target = urllib.parse.urlsplit(link)
            bare = link.split("#", 1)[0]
            if f"{target.scheme}://{target.netloc}" != origin:
                continue
            if target.path.startswith("/book/") and target.path.endswith(".html") and bare not in pages:
                queue.append(bare)
    outside = page.requests_outside(prefixes=(origin + "/", "about:", "data:"))
    problems += [f"asked the network for {u}" for u in outside]
    page.close()
    return pages, problems


def links_resolve(pages, playground, scenarios):
    origin = playground.url.rstrip("/")
    problems, counted = [], {"book": 0, "anchor": 0, "playground": 0, "file": 0, "elsewhere": 0}
    checked_files = {}
    for url, seen in pages.items():
        for link in seen["links"]:
            target = urllib.parse.urlsplit(link)
            bare = link.split("#", 1)[0]
            if f"{target.scheme}://{target.netloc}" != origin:
                counted["elsewhere"] += 1
                if target.scheme not in ("http", "https"):
                    problems.append(f"{url}: a link of scheme {target.scheme!r}: {link}")
                continue
            if target.path.startswith("/book/") and target.path.endswith(".html"):
                counted["book"] += 1
                if bare not in pages:
                    problems.append(f"{url}: links to {link}, which the crawl did not load")
                elif target.fragment:
                    counted["anchor"] += 1
                    if target.fragment not in pages[bare]["ids"]:
                        problems.append(f"{url}: links to #{target.fragment} of {bare}, which has no such id")
            elif target.path.startswith("/book/"):
                counted["file"] += 1
                if bare not in checked_files:
                    checked_files[bare] = status_of(bare)
                if checked_files[bare] != 200:
                    problems.append(f"{url}: links to {bare}: HTTP {checked_files[bare]}")
            elif target.path == "/":
                counted["playground"] += 1
                scenario = urllib.parse.parse_qs(target.query).get("scenario", [None])[0]
                if scenario is not None and scenario not in scenarios:
                    problems.append(f"{url}: links to the playground's tour {scenario!r}, which it does not have")
            else:
                problems.append(f"{url}: links to {link}, neither the book nor the playground")
    return problems, counted


def code_blocks_keep_their_lines(browser, playground, outdir):
    page = browser.new_page()
    page.goto(playground.url + "book/" + STAGE_4)
    blocks = page.evaluate("""[...document.querySelectorAll('pre')].map(pre => {
        const code = pre.querySelector('code') || pre;
        return {ws: getComputedStyle(code).whiteSpace, overflow: getComputedStyle(pre).overflowX,
                wide: pre.scrollWidth > pre.clientWidth, text: pre.textContent.slice(0, 40)};
    })""")
    expect(blocks, "the stage 4 chapter has code blocks")
    for b in blocks:
        expect(b["ws"] == "pre", f"a code block keeps its lines (white-space: pre), not {b['ws']!r}: {b['text']!r}")
        if b["wide"]:
            expect(b["overflow"] in ("auto", "scroll"), f"a wide code block scrolls, not {b['overflow']!r}: {b['text']!r}")
    expect(page.evaluate("!!document.querySelector('nav.chapters a[aria-current=page]')"),
           "the chapter list marks the page being read")
    expect(page.evaluate("!!document.querySelector('nav#TOC a[href=\"#try-to-break-it\"]')"),
           "the page's table of contents links its sections")
    shot = os.path.join(outdir, "book-stage-4.png")
    page.screenshot(shot)
    print(f"     {len(blocks)} code blocks, {sum(b['wide'] for b in blocks)} wider than the column; screenshot {shot}")
    page.close()


def refuses_paths_out_of_the_book(playground):
    """The route reads files from disk for paths from the network: none outside the book's folder."""
    import http.client
    host, port = urllib.parse.urlsplit(playground.url).netloc.split(":")
    for path in ("/book/../CMakeLists.txt", "/book/%2e%2e/CMakeLists.txt", "/book/learn/../../CMakeLists.txt",
                 "/book/.hidden", "/book//etc/passwd", "/book/learn%2f..%2f..%2fCMakeLists.txt",
                 "/book/" + "a/" * 150 + "x.html", "/book/" + "no-such-page.html"):
        connection = http.client.HTTPConnection(host, int(port), timeout=15)
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read().decode(errors="replace")
        connection.close()
        expect(response.status == 404 and "problem+json" in response.getheader("Content-Type", ""),
               f"GET {path[:60]} answers 404 problem+json, not {response.status}")
        expect("cmake_minimum_required" not in body and "root:" not in body, f"GET {path[:60]} shows no file")


def tours_link_their_chapter(browser, playground, pages):
    """Each tour's "Read:" link (GET /api/scenarios' "read") is a page of the book with that heading, and the
    playground's page shows it for the chosen tour."""
    origin = playground.url.rstrip("/")
    for s in playground.get_json("/api/scenarios"):
        expect(s.get("read"), f"the tour {s['name']} names a chapter to read")
        href = origin + s["read"]["href"]
        bare, _, fragment = href.partition("#")
        expect(bare in pages and fragment in pages[bare]["ids"], f"the tour {s['name']}'s chapter {href} is in the book")
    page = browser.new_page()
    page.goto(playground.url)
    shown = page.wait_for("!document.getElementById('read-chapter').hidden && "
                          "document.getElementById('read-chapter').href", 10, "the Read: link of the chosen tour")
    expect(shown.split("#")[0] in pages, f"the page's Read: link {shown} is a page of the book")
    expect(not page.errors, f"the playground's page has no error: {page.errors[:3]}")
    page.close()


def every_page_loads(browser, playground, found):
    found["pages"], problems = crawl(browser, playground)
    expect(not problems, "\n".join(problems[:20]))


def every_page_is_reached(pages, on_disk):
    crawled = {urllib.parse.urlsplit(u).path[len("/book/"):] or "index.html" for u in pages}
    expect(set(on_disk) <= crawled, f"not reached: {sorted(set(on_disk) - crawled)}")


def every_link_resolves(pages, playground, scenarios):
    problems, counted = links_resolve(pages, playground, scenarios)
    print(f"     links: {counted}")
    expect(not problems, "\n".join(problems[:20]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playground", required=True)
    parser.add_argument("--book-dir", required=True)
    parser.add_argument("--outdir", default=".")
    args = parser.parse_args()
    exit_if_no_chromium()
    if not os.path.isfile(os.path.join(args.book_dir, "index.html")):
        print(f"SKIP: no book in {args.book_dir} (make book; the test 'book: make book renders every chapter')")
        sys.exit(77)
    exit_cleanly_on_sigterm()
    os.makedirs(args.outdir, exist_ok=True)
    started = time.monotonic()
    on_disk = sorted(os.path.relpath(os.path.join(d, f), args.book_dir)
                     for d, _, files in os.walk(args.book_dir) for f in files if f.endswith(".html"))
    checks = Checklist()
    with Playground(args.playground, book_dir=args.book_dir) as playground, cdp.Browser() as browser:
        scenarios = {s["name"] for s in playground.get_json("/api/scenarios")}
        found = {"pages": {}}
        checks.run("every page reachable from /book/ loads without an error, and nothing comes from the network",
                   every_page_loads, browser, playground, found)
        pages = found["pages"]
        checks.run(f"the crawl reaches every page of the book ({len(on_disk)})", every_page_is_reached, pages, on_disk)
        checks.run("every link resolves: pages, their anchors, the playground's tours, the copied files",
                   every_link_resolves, pages, playground, scenarios)
        checks.run("each tour links to its chapter, and the playground's page shows the link",
                   tours_link_their_chapter, browser, playground, pages)
        checks.run("a path out of the book's folder is a 404 problem, never a file", refuses_paths_out_of_the_book,
                   playground)
        checks.run("the stage 4 chapter: code blocks keep their lines, navigation, a screenshot",
                   code_blocks_keep_their_lines, browser, playground, args.outdir)
    print(f"book test: {len(pages)} pages, {time.monotonic() - started:.1f} s")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
