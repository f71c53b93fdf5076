#!/usr/bin/env python3
"""tour_links_test.py: a guided tour opened from its link (/?scenario=NAME&role=ROLE, the playground's "Link to
this moment") shows that scenario around it, not the first one of the menu (issue #56). docs/teach/the-playground.md
"The playground".

    tour_links_test.py --playground BIN --grader BIN [--bin-dir DIR]

For each scenario `grader demo` lists, and each role it can be told on (flawed; fixing where it has a fixing
stage), opens /?scenario=NAME&role=ROLE&seed=1&step=0 and, once the tour stands before its step 1, checks:
  the session line:   Guided tour "NAME" on LABEL (BINARY), LABEL the role's stand;
  the menu:           select#scenario is NAME, select#role is ROLE;
  the "told on" choices: option[value=flawed] begins with the flawed stand's label, option[value=fixing] with
                      the fixing stand's (and is disabled when there is none);
  a#read-chapter:     "Read: Stage N: <title>", to /book/<chapter>.html#<its anchor>, for the stage that fixes
                      it (or the stage a policy story is told on); hidden when that stand is a wrong turn.
Then, on the first link's page, choosing each other scenario in the menu shows that one's choices and link.
The expected values come from outside the page: the scenarios and their stands from `grader demo`'s list, each
stand's binary, stage, title and chapter from stages/stage_servers.json. GET /api/scenarios, the page's own
source, is only compared with that list. A page load per link, no step told. Exit 77 without chromium.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "docs"))
import cdp  # noqa: E402
from check_doc_references import anchor  # noqa: E402  the heading-anchor rule, written once for the tests
from checklist import Checklist, exit_cleanly_on_sigterm, exit_if_no_chromium, expect  # noqa: E402
from playground_test import Playground, no_error_and_nothing_outside  # noqa: E402

STAGE_SERVERS = os.path.join(REPO, "stages", "stage_servers.json")
START_TIMEOUT_S = 30   # the tour stands before its step 1: its stage server started (seconds)
LIST_TIMEOUT_S = 30    # `grader demo` prints its list: no server is started (seconds)

# `grader demo`'s list (grader/cli/demo.cc:list_scenarios), two lines a scenario:
#     lost-response           the gateway times out, the retry with the same key moves the money again
#                             flaw on stage 1, fixed by stage 2
#     retry-after-expiry      a retry after the key's retention executes again, as the policy says
#                             flaw on stage 6 (the last stage: its published policy)
DEMO_ENTRY = re.compile(r"^  (?P<name>\S+) +.*\n +flaw on (?P<flawed>.+?)(?:, fixed by (?P<fixing>.+)| \(.*\))$",
                        re.MULTILINE)


# ---------------------------------------------------------------------------------------------------------
# What each link should show, from grader demo and stages/stage_servers.json
# ---------------------------------------------------------------------------------------------------------

def demo_scenarios(grader):
    """[(name, flawed label, fixing label or None)] in `grader demo`'s order."""
    listed = subprocess.run([grader, "demo"], capture_output=True, text=True, timeout=LIST_TIMEOUT_S,
                            env={**os.environ, "NO_COLOR": "1"})
    expect(listed.returncode == 0, f"`grader demo` exits 0, not {listed.returncode}: {listed.stderr.strip()}")
    found = [(m["name"], m["flawed"], m["fixing"]) for m in DEMO_ENTRY.finditer(listed.stdout)]
    expect(found, f"`grader demo` lists no scenario in the form 'NAME TITLE / flaw on X[, fixed by Y]':\n{listed.stdout}")
    return found


def servers_by_name():
    """stages/stage_servers.json's rows by "name", the words a story names its stand by ("wrong turn 4a")."""
    with open(STAGE_SERVERS, encoding="utf-8") as f:
        return {row["name"]: row for row in json.load(f)["servers"]}


def expected_read(row):
    """The Read: link of a story whose chapter is `row`'s: (text, href), or None for a wrong turn, which has
    no stage chapter of its own (its chapter holds all the wrong turns)."""
    if row["must_fail"] is not None:
        return None
    heading = f"Stage {row['stage']}: {row['title']}"   # a stage chapter's first heading (stage_servers.json)
    page = re.sub(r"^docs/", "", row["chapter"])
    page = re.sub(r"\.md$", ".html", page)
    return f"Read: {heading}", f"/book/{page}#{anchor(heading)}"


def expectations(grader):
    """A dict per link to open: the scenario, the role and what the page must show."""
    servers = servers_by_name()
    out = []
    for name, flawed, fixing in demo_scenarios(grader):
        for label in (flawed, fixing):
            expect(label is None or label in servers,
                   f"{name}: `grader demo` tells it on {label!r}, a name no row of {STAGE_SERVERS} has")
        teacher = servers[fixing or flawed]   # the stage that fixes it, or the policy's own stage
        for role in ("flawed", "fixing") if fixing else ("flawed",):
            stand = servers[fixing if role == "fixing" else flawed]
            out.append({"scenario": name, "role": role,
                        "session": f'Guided tour "{name}" on {stand["name"]} ({stand["binary"]})',
                        "flawed": flawed, "fixing": fixing, "read": expected_read(teacher)})
    return out


# ---------------------------------------------------------------------------------------------------------
# What the page shows
# ---------------------------------------------------------------------------------------------------------

SHOWN_JS = """(() => {
  const option = (value) => document.querySelector(`select#role option[value=${value}]`);
  const read = document.getElementById('read-chapter');
  return {status: document.getElementById('session-status').textContent,
          scenario: document.getElementById('scenario').value, role: document.getElementById('role').value,
          flawed: option('flawed').textContent, fixing: option('fixing').textContent,
          fixing_disabled: option('fixing').disabled,
          read_hidden: read.hidden, read_text: read.textContent, read_href: read.getAttribute('href')};
})()"""


def this_tour_started(playground, name, role, before):
    """Waits until the server's session is the link's tour, standing before its step 1; returns the state's
    version. The server keeps one session for every page: the previous link's tour is still there until this
    page's POST /api/tour replaces it, so the page's body[data-mode] alone would say "tour" too early."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        state = playground.get_json("/api/state")
        session = state["session"]
        if (state["version"] > before and session.get("scenario") == name and session.get("role") == role
                and session.get("waiting") == "step"):
            return state["version"]
        time.sleep(0.1)
    raise AssertionError(f"the link's {name} tour ({role}) did not start within {START_TIMEOUT_S} s: "
                         f"the session is {session}")


def open_link(browser, playground, want):
    """A new tab on the tour's link, once it has rendered that tour (the caller closes it)."""
    name, role = want["scenario"], want["role"]
    page = browser.new_page()
    before = playground.get_json("/api/state")["version"]
    page.goto(f"{playground.url}?scenario={name}&role={role}&seed=1&step=0")
    version = this_tour_started(playground, name, role, before)
    page.wait_for(f"Number(document.body.dataset.version) >= {version}", START_TIMEOUT_S,
                  f"the page to render the {name} tour ({role}), state version {version}", show="#session-status")
    return page


def choices_differ(shown, want, what):
    """The PROBLEM lines where the menu, the told-on choices or the Read: link are not `want`'s scenario's."""
    problems = []

    def differs(part, got, expected):
        problems.append(f"PROBLEM {what}: {part} is {got!r}, expected {expected!r}")

    if shown["scenario"] != want["scenario"]:
        differs("select#scenario", shown["scenario"], want["scenario"])
    if shown["role"] != want["role"]:
        differs("select#role", shown["role"], want["role"])
    # The choices' wording is the page's; each begins with its stand's label (render: "LABEL, with the flaw").
    if not shown["flawed"].startswith(want["flawed"] + ","):
        differs("the flawed choice", shown["flawed"], want["flawed"] + ", ...")
    if want["fixing"] and not shown["fixing"].startswith(want["fixing"] + ","):
        differs("the fixing choice", shown["fixing"], want["fixing"] + ", ...")
    if shown["fixing_disabled"] != (want["fixing"] is None):
        differs("the fixing choice's disabled", shown["fixing_disabled"], want["fixing"] is None)
    if want["read"] is None:
        if not shown["read_hidden"]:
            differs("a#read-chapter (a wrong turn has no stage chapter)", shown["read_text"], "hidden")
    elif shown["read_hidden"] or (shown["read_text"], shown["read_href"]) != want["read"]:
        differs("a#read-chapter", "hidden" if shown["read_hidden"] else (shown["read_text"], shown["read_href"]),
                want["read"])
    return problems


def link_shows_its_scenario(browser, playground, want):
    """Opens the tour's link; returns the PROBLEM lines (none when the page shows that scenario throughout)."""
    what = f"{want['scenario']} ({want['role']})"
    page = open_link(browser, playground, want)
    try:
        shown = page.evaluate(SHOWN_JS)
        no_error_and_nothing_outside(page, playground)
    finally:
        page.close()
    problems = choices_differ(shown, want, what)
    if not shown["status"].startswith(want["session"]):
        problems.insert(0, f"PROBLEM {what}: the session line is {shown['status']!r}, "
                           f"expected {want['session'] + '...'!r}")
    return problems


def every_link_shows_its_scenario(browser, playground, wanted):
    problems = []
    for want in wanted:
        found = link_shows_its_scenario(browser, playground, want)
        print("\n".join(found) if found else f"     {want['scenario']} ({want['role']}): as expected", flush=True)
        problems += found
    expect(not problems, f"{len(problems)} PROBLEM lines, above")


def the_menu_then_shows_the_chosen_scenario(browser, playground, wanted):
    """After a link's tour, choosing each other scenario in the menu (select#scenario's change event, as a
    learner's pick fires it) shows that one's choices and Read: link; the tour itself goes on untouched."""
    first = wanted[0]
    page = open_link(browser, playground, first)
    problems = []
    try:
        for want in (w for w in wanted if w["role"] == "flawed" and w["scenario"] != first["scenario"]):
            page.evaluate(f"""(() => {{ const menu = document.getElementById('scenario');
                menu.value = {json.dumps(want['scenario'])}; document.getElementById('role').value = 'flawed';
                menu.dispatchEvent(new Event('change', {{bubbles: true}})); }})()""")
            problems += choices_differ(page.evaluate(SHOWN_JS), want, f"{first['scenario']}'s link, then the menu's "
                                                                       f"{want['scenario']}")
        no_error_and_nothing_outside(page, playground)
    finally:
        page.close()
    if problems:
        print("\n".join(problems), flush=True)
    expect(not problems, f"{len(problems)} PROBLEM lines, above")


def playground_lists_grader_demos_scenarios(playground, wanted):
    """The cross-check: the page's own list (GET /api/scenarios) names the same scenarios and stands."""
    listed = {(s["name"], s["flawed"]["label"], (s.get("fixing") or {}).get("label"))
              for s in playground.get_json("/api/scenarios")}
    demo = {(w["scenario"], w["flawed"], w["fixing"]) for w in wanted}
    expect(listed == demo, f"GET /api/scenarios and `grader demo` differ: only the playground's {sorted(listed - demo)}, "
                           f"only grader demo's {sorted(demo - listed)}")


# ---------------------------------------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--playground", required=True, help="the playground binary")
    p.add_argument("--grader", required=True, help="the grader binary: `grader demo` lists the scenarios")
    p.add_argument("--bin-dir", help="the stage binaries (passed to the playground)")
    return p.parse_args()


def main():
    args = parse_args()
    exit_if_no_chromium()
    exit_cleanly_on_sigterm()
    checks = Checklist()
    started = time.monotonic()
    wanted = []
    if not checks.run("`grader demo` lists the scenarios, each stand a row of stages/stage_servers.json",
                      lambda: wanted.extend(expectations(args.grader))):
        return checks.finish()
    with Playground(args.playground, args.bin_dir) as playground, cdp.Browser() as browser:
        print(f"playground: {playground.url}  chromium: {browser.version}  links: {len(wanted)}")
        checks.run("GET /api/scenarios names grader demo's scenarios and stands (a cross-check)",
                   playground_lists_grader_demos_scenarios, playground, wanted)
        checks.run("each tour's link shows its scenario: the session line, the told-on choices, the Read: link",
                   every_link_shows_its_scenario, browser, playground, wanted)
        checks.run("after a link's tour, the menu's choice of another scenario shows that one's choices and Read: link",
                   the_menu_then_shows_the_chosen_scenario, browser, playground, wanted)
    print(f"tour links test: {time.monotonic() - started:.1f} s")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
