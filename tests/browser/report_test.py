#!/usr/bin/env python3
"""report_test.py: the grader's HTML report (grader/report/report_html.cc; docs/teach/grader.md "The grader", the report) works in
a real browser, opened from disk: its DOM is the one the contract promises, its "jump to the first violation"
links land on the violation, it reads without scripts, and it asks for nothing but its own file.

    report_test.py REPORT.html [SCREENSHOT_DIR] [--parts matrix,day]

    --parts    which parts the report must have (default both): a `grader matrix --html` report has the
               matrix and its failures, a `grader day replay --html` one the day, `grader report` both

What it checks (the DOM contract of the report), for the matrix part:
  - table#matrix: every td[data-verdict] is pass, fail or skip, and says so in words (not colour alone)
  - every section.failed-check[data-check][data-stage] has one timeline svg with g.attempt elements, each
    focusable and named (tabindex, aria-label), and one a.first-violation whose target is in that section,
    an anomaly attempt (a check that sent no request, so has no attempt to mark: its findings list instead);
    ids are unique in the whole file (one anchor per check)
  - clicking a.first-violation scrolls its target into view (and makes it :target): up to 12 links, spread
for the day part:
  - table#day-damage has rows and svg#day-chart draws labelled bars
and always:
  - no request to anything but file:// (and data:), no JS error, and the same content with JS disabled
Saves a screenshot of the whole report to SCREENSHOT_DIR/report-<name>.png. Exit 77 without chromium.
"""
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
from checklist import Checklist, exit_cleanly_on_sigterm, exit_if_no_chromium, expect  # noqa: E402

VERDICTS = ("pass", "fail", "skip")
REPORT_PREFIXES = ("file://", "data:")   # an inline image may be a data: URL; nothing else is the file's
# What must be there with scripts disabled as with them: the report is read without its inline JS.
COUNTED = {"cells": "table#matrix td[data-verdict]", "sections": "section.failed-check",
           "attempts": "section.failed-check svg g.attempt", "links": "a.first-violation",
           "day rows": "table#day-damage tbody tr", "chart shapes": "svg#day-chart rect, svg#day-chart path"}
LINKS_CLICKED_MAX = 12
CLICK_WAIT_S = 3                          # a fragment jump is instant; this only bounds a broken one


def matrix_says_each_verdict_in_words(page):
    cells = page.evaluate("""[...document.querySelectorAll('table#matrix td[data-verdict]')]
        .map(td => [td.dataset.verdict, td.textContent.trim()])""")
    expect(page.evaluate("!!document.querySelector('table#matrix')"), "there is a table#matrix")
    expect(cells, "table#matrix has td[data-verdict] cells")
    for verdict, text in cells:
        expect(verdict in VERDICTS, f"a cell's data-verdict is pass, fail or skip, not {verdict!r}")
        expect(verdict.upper() in text.upper(), f"a {verdict} cell says {verdict.upper()} in words, not only colour: {text!r}")
    counts = {v: sum(1 for c in cells if c[0] == v) for v in VERDICTS}
    print(f"     matrix: {len(cells)} cells, {counts}")


def failed_sections(page):
    return page.evaluate("""[...document.querySelectorAll('section.failed-check')].map(s => ({
        check: s.dataset.check || '', stage: s.dataset.stage || '',
        timelines: [...s.querySelectorAll('svg')].filter(svg => !svg.parentElement.closest('svg')).length,
        findings_only: !s.querySelector('svg g.attempt.anomaly') && !!s.querySelector('.findings .finding'),
        attempts: s.querySelectorAll('svg g.attempt').length,
        unnamed: [...s.querySelectorAll('svg g.attempt')].filter(g =>
            !g.getAttribute('aria-label') || g.getAttribute('tabindex') !== '0' || !g.dataset.op).length,
        links: [...s.querySelectorAll('a.first-violation')].map(a => a.getAttribute('href')),
    }))""")


def every_failed_check_has_its_timeline(page):
    """A check that sent no request (a published policy, a document) has an empty timeline, and its link
    goes to its findings instead (see anchors_are_unique_and_land_in_their_section)."""
    sections = failed_sections(page)
    fails = page.evaluate("document.querySelectorAll('table#matrix td[data-verdict=fail]').length")
    expect(not fails or sections, f"{fails} failed cells, but no section.failed-check")
    expect(len(sections) <= max(fails, 0) or not fails,
           f"{len(sections)} failed-check sections for {fails} failed cells")
    for s in sections:
        name = f"section {s['check']!r} on {s['stage']!r}"
        expect(s["check"] and s["stage"], f"{name}: data-check and data-stage are set")
        expect(s["timelines"] == 1, f"{name}: one timeline svg, not {s['timelines']}")
        expect(s["attempts"] >= 1 or s["findings_only"],
               f"{name}: its timeline has at least one g.attempt (or, for a check that sent nothing, findings)")
        expect(s["unnamed"] == 0, f"{name}: {s['unnamed']} attempts lack aria-label, tabindex=0 or data-op")
        expect(len(s["links"]) == 1, f"{name}: one a.first-violation, not {len(s['links'])}")
    told_by_findings = sum(1 for s in sections if s["attempts"] == 0)
    print(f"     {len(sections)} failed-check sections, {sum(s['attempts'] for s in sections)} attempts drawn; "
          f"{told_by_findings} sections without attempts, told by their findings")


def anchors_are_unique_and_land_in_their_section(page):
    duplicates = page.evaluate("""(() => { const seen = {}, twice = new Set();
        for (const el of document.querySelectorAll('[id]')) { if (seen[el.id]) twice.add(el.id); seen[el.id] = 1; }
        return [...twice]; })()""")
    expect(not duplicates, f"every id is unique (one first-violation anchor per check): repeated {duplicates[:5]}")
    problems = page.evaluate("""[...document.querySelectorAll('section.failed-check')].flatMap(s =>
        [...s.querySelectorAll('a.first-violation')].map(a => {
            const href = a.getAttribute('href') || '';
            if (!href.startsWith('#')) return `${s.dataset.check}: href ${href} is not a fragment`;
            const target = document.getElementById(decodeURIComponent(href.slice(1)));
            if (!target) return `${s.dataset.check}: ${href} has no target`;
            if (!s.contains(target)) return `${s.dataset.check}: ${href} points outside its section`;
            const onAnomaly = target.closest('g.attempt.anomaly') || target.querySelector('g.attempt.anomaly');
            // No attempt marked (a check that sent no request): the link may go to the section's findings.
            const onFindings = !s.querySelector('g.attempt.anomaly') && target.matches('.findings') &&
                               target.querySelector('.finding');
            if (!onAnomaly && !onFindings)
                return `${s.dataset.check}: ${href} is neither an anomaly attempt nor (none marked) the findings`;
            return null;
        })).filter(p => p)""")
    expect(not problems, "; ".join(problems[:5]))


def first_violation_links_scroll_to_the_violation(page):
    count = page.evaluate("document.querySelectorAll('section.failed-check a.first-violation').length")
    # The matrix's report has a section per failed cell (170 and more): a spread sample of them is clicked,
    # first and last included; every link's target was checked above without clicking.
    step = max(1, -(-count // LINKS_CLICKED_MAX))
    sample = sorted(set(range(0, count, step)) | ({count - 1} if count else set()))
    focused = 0
    for i in sample:
        page.evaluate("""(() => { for (const d of document.querySelectorAll('details')) d.open = true;
            history.replaceState(null, '', location.pathname); window.scrollTo(0, 0); })()""")
        # Marks the i-th link so that click() can name it by a selector.
        page.evaluate(f"document.querySelectorAll('section.failed-check a.first-violation')[{i}]"
                      f".setAttribute('data-test-link', '{i}')")
        selector = f'a.first-violation[data-test-link="{i}"]'
        href = page.evaluate(f"document.querySelector('{selector}').getAttribute('href')")
        page.click(selector)
        page.wait_for(f"""(() => {{ const t = document.getElementById(decodeURIComponent({href!r}.slice(1)));
            const r = t.getBoundingClientRect();
            return location.hash === {href!r} && t.matches(':target') && r.bottom > 0 && r.top < innerHeight; }})()""",
                      CLICK_WAIT_S, f"{href} to be the :target and in view after clicking its link")
        focused += page.evaluate(f"""(() => {{ const t = document.getElementById(decodeURIComponent({href!r}.slice(1)));
            return t === document.activeElement || t.contains(document.activeElement); }})()""")
    print(f"     {len(sample)} of {count} links clicked, each landed in view; {focused} of them also moved the focus there")


def day_damage_table_and_chart(page):
    rows = page.evaluate("document.querySelectorAll('table#day-damage tbody tr').length")
    expect(page.evaluate("!!document.querySelector('table#day-damage')"), "there is a table#day-damage")
    expect(rows >= 1, "table#day-damage has a row per stage")
    chart = page.evaluate("""(() => { const svg = document.querySelector('svg#day-chart');
        if (!svg) return null;
        return {shapes: svg.querySelectorAll('rect, path, line, polygon').length,
                numbers: [...svg.querySelectorAll('text')].filter(t => /\\d/.test(t.textContent)).length}; })()""")
    expect(chart is not None, "there is an svg#day-chart")
    expect(chart["shapes"] >= 1 and chart["numbers"] >= 1, f"svg#day-chart draws bars labelled with numbers: {chart}")
    print(f"     day: {rows} damage rows, chart {chart}")


def asks_for_nothing_but_its_file(page):
    outside = page.requests_outside(REPORT_PREFIXES)
    expect(not outside, f"the report asked for {outside[:5]}")
    expect(not page.failed_requests, f"requests that failed: {page.failed_requests[:5]}")


def reads_the_same_without_scripts(browser, url, with_scripts):
    page = browser.new_page()
    page.send("Emulation.setScriptExecutionDisabled", {"value": True})
    page.goto(url)
    # page.evaluate still works here: scripts of the test run, the page's own do not.
    for name, selector in COUNTED.items():
        n = page.evaluate(f"document.querySelectorAll({selector!r}).length")
        expect(n == with_scripts[name], f"with scripts off, {with_scripts[name]} {name} should be there, not {n}")
    page.close()


def main():
    argv = sys.argv[1:]
    parts = {"matrix", "day"}
    if "--parts" in argv:
        i = argv.index("--parts")
        parts = set(argv[i + 1].split(",")) if i + 1 < len(argv) else set()
        del argv[i:i + 2]
        if not parts or parts - {"matrix", "day"}:
            print("--parts takes matrix, day or matrix,day")
            return 2
    args = [a for a in argv if not a.startswith("--")]
    if not args:
        print(__doc__)
        return 2
    report = os.path.abspath(args[0])
    outdir = args[1] if len(args) > 1 else tempfile.mkdtemp(prefix="report-test-")
    if not os.path.exists(report):
        print(f"FAIL: no report at {report} (the grader_matrix test writes it with --html: run it first)")
        return 1
    exit_if_no_chromium()
    exit_cleanly_on_sigterm()
    start = time.monotonic()
    url = "file://" + report
    checks = Checklist()
    print(f"report: {report}")
    with cdp.Browser() as browser:
        page = browser.new_page()
        page.goto(url)
        if "matrix" in parts:
            checks.run("table#matrix says each verdict in words", matrix_says_each_verdict_in_words, page)
            checks.run("every failed check has a section with its timeline and one link",
                       every_failed_check_has_its_timeline, page)
            checks.run("ids are unique and each link's target is an anomaly in its own section",
                       anchors_are_unique_and_land_in_their_section, page)
            checks.run("'jump to the first violation' scrolls to the violation",
                       first_violation_links_scroll_to_the_violation, page)
        if "day" in parts:
            checks.run("the day's damage: table#day-damage and svg#day-chart", day_damage_table_and_chart, page)
        checks.run("it asks for nothing but its own file", asks_for_nothing_but_its_file, page)
        checks.run("no JS error", lambda: expect(not page.errors, f"errors: {page.errors}"))
        with_scripts = {name: page.evaluate(f"document.querySelectorAll({sel!r}).length") for name, sel in COUNTED.items()}
        checks.run("it reads the same with scripts disabled", reads_the_same_without_scripts, browser, url, with_scripts)
        page.evaluate("window.scrollTo(0, 0)")
        name = os.path.splitext(os.path.basename(report))[0]
        checks.run("a screenshot is saved", lambda: print(f"screenshot: "
                                                          f"{page.screenshot(os.path.join(outdir, f'report-{name}.png'))}"))
    print(f"report test: {time.monotonic() - start:.1f} s")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
