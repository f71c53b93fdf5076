#!/usr/bin/env python3
"""playground_test.py: the playground (playground/, docs/teach/the-playground.md "The playground") works in a real browser: every
guided tour runs to its end by clicking, what the page shows after each step is what the server holds, the
tour's history is the one `grader demo` makes, and free mode's predict-then-reveal tells the truth.

    playground_test.py --playground BIN --grader BIN [--bin-dir DIR] [--outdir DIR]
                       [--only tours|free] [--scenario NAME]... [--role flawed|fixing]...

  tours: for each scenario of GET /api/scenarios (or --scenario), opens
         /?scenario=NAME&role=flawed&seed=1&step=0 and clicks #next until body[data-waiting=finished],
         answering #prediction by clicking a choice when it shows. After each step: the page shows the state
         (narration items, one g.attempt per invoke of the history, the rows of table#keys, #ledger,
         #accounts). At the end: GET /api/history.jsonl is valid (tests/grader/validate_history.py) and tells
         the same story as `grader demo NAME --history FILE` (history_compare.py says what is compared).
  free:  /?stand=stage1_naive: send with key k1, send again with k1, predict "replay": the reveal says
         new-debit, data-correct=false, and the ledger has 2 rows; on stage5_replay: replay, correct, 1 row.
Every page must run without a JS error and ask for nothing beyond the playground. Screenshots:
OUTDIR/<scenario>-<role>.png, OUTDIR/free-<stand>.png. Exit 77 without chromium.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
import history_compare  # noqa: E402
from checklist import Checklist, exit_cleanly_on_sigterm, exit_if_no_chromium, expect  # noqa: E402

VALIDATE_HISTORY = os.path.join(REPO, "tests", "grader", "validate_history.py")
# The contract's "playground: http://127.0.0.1:PORT/", or the lab servers' "listening on http://127.0.0.1:PORT".
URL_LINE = re.compile(r"(?:playground: |listening on )(http://127\.0\.0\.1:\d+)/?")
CHOICES = ("replay", "409", "422", "new-debit")
PLAYGROUND_PREFIXES = ("about:", "data:", "blob:")   # and the playground's own URL, added at run time

# Times, in seconds. A step of a story takes at most a few seconds (a 1.5 s slow request, a restart).
START_TIMEOUT_S = 15       # the playground prints its URL line
STOP_TIMEOUT_S = 15        # SIGTERM to exit: it stops its stage server first (a long poll may hold it 10 s)
STEP_TIMEOUT_S = 30        # one #next to its pause: the simultaneous-retries step may send many bursts
SYNC_TIMEOUT_S = 5         # the page renders a state version (it polls about every 300 ms)
DEMO_TIMEOUT_S = 90        # `grader demo NAME` tells the story twice
MAX_STEPS = 20             # a story has fewer; more means #next does not move the tour on

# A story whose shape is a race is compared loosely: both histories send the same requests, in whatever
# number and order the race made.
RACY_SCENARIOS = {
    "simultaneous-retries": "how many bursts it takes, and which copy wins each, is the race itself",
}


# ---------------------------------------------------------------------------------------------------------
# The playground server: started, asked, and always stopped.
# ---------------------------------------------------------------------------------------------------------

class Playground:
    """`playground --port 0` for the length of a `with` block; its whole process group is killed after."""

    def __init__(self, binary, bin_dir=None, book_dir=None):
        self.command = ([binary, "--port", "0"] + (["--bin-dir", bin_dir] if bin_dir else [])
                        + (["--book-dir", book_dir] if book_dir else []))
        self.proc = None
        self.url = None
        self.log = tempfile.NamedTemporaryFile(prefix="playground-", suffix=".log", delete=False)

    def __enter__(self):
        # start_new_session: the stage servers it starts share its process group, and die with it.
        self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            match = URL_LINE.search(self.output())
            if match:
                self.url = match.group(1) + "/"
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.__exit__()
        raise RuntimeError(f"{' '.join(self.command)} printed no 'playground: http://127.0.0.1:PORT/' line "
                           f"within {START_TIMEOUT_S} s; its output:\n{self.output()}")

    def __exit__(self, *exc):
        if self.proc is not None:
            stopping = time.monotonic()
            for sig, patience in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, 3)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout=patience)
                    os.killpg(self.proc.pid, signal.SIGKILL)   # its stage servers, if they outlived it
                except subprocess.TimeoutExpired:
                    print(f"the playground did not stop within {patience} s of SIGTERM: killed (its last stage "
                          f"server may be left running)")
                    continue
                except ProcessLookupError:
                    pass
                break
            print(f"playground stopped in {time.monotonic() - stopping:.1f} s")
        self.log.close()
        return False

    def output(self):
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def get(self, path):
        with urllib.request.urlopen(self.url.rstrip("/") + path, timeout=15) as r:
            return r.read().decode()

    def get_json(self, path):
        return json.loads(self.get(path))


# ---------------------------------------------------------------------------------------------------------
# What the page shows, against what the server holds.
# ---------------------------------------------------------------------------------------------------------

DOM_SUMMARY_JS = """(() => {
  const rows = (id) => { const t = document.querySelector('table#' + id);
    return t ? {rows: t.querySelectorAll('tbody tr').length,
                columns: [...t.querySelectorAll('thead th')].map(th => th.textContent.trim())} : null; };
  const b = document.body.dataset;
  return {version: Number(b.version), waiting: b.waiting, mode: b.mode, step: b.step,
          narration: document.querySelectorAll('ol#narration > li').length,
          narration_steps: document.querySelectorAll('ol#narration > li[data-kind=step]').length,
          attempts: document.querySelectorAll('div#timeline svg g.attempt').length,
          keys: rows('keys'), ledger: rows('ledger'), accounts: rows('accounts')};
})()"""


def page_matches_state(page, playground, what):
    """Waits until the page has rendered the server's current state, then checks that it shows it: returns
    the state. Retries while the state still moves (a lost request ending in the background)."""
    for _ in range(10):
        state = playground.get_json("/api/state")
        version = state["version"]
        page.wait_for(f"Number(document.body.dataset.version) >= {version}", SYNC_TIMEOUT_S,
                      f"the page to render state version {version} ({what})", show="ol#narration")
        dom = page.evaluate(DOM_SUMMARY_JS)
        if dom["version"] == version == playground.get_json("/api/state")["version"]:
            break
    else:
        raise AssertionError(f"{what}: the state kept changing; the page never showed a settled version")
    session = state["session"]
    invokes = sum(1 for e in state["history"] if e["type"] == "invoke")
    problems = []
    if dom["waiting"] != session["waiting"]:
        problems.append(f"body[data-waiting] is {dom['waiting']!r}, the session is {session['waiting']!r}")
    if str(dom["step"]) != str(session["step"]):
        problems.append(f"body[data-step] is {dom['step']!r}, the session's step is {session['step']}")
    if dom["narration"] != len(state["narration"]):
        problems.append(f"{dom['narration']} narration items, the state has {len(state['narration'])}")
    if session["mode"] == "tour" and dom["narration_steps"] != session["step"]:
        problems.append(f"{dom['narration_steps']} narration steps (li[data-kind=step]) at step {session['step']}")
    if dom["attempts"] != invokes:
        problems.append(f"{dom['attempts']} g.attempt in the timeline, the history has {invokes} invokes")
    for table in ("keys", "ledger", "accounts"):
        shown, held = dom[table], state[table]
        if shown is None:
            problems.append(f"no table#{table}")
        elif shown["rows"] != len(held["rows"]):
            problems.append(f"table#{table} shows {shown['rows']} rows, the server holds {len(held['rows'])}")
        elif shown["columns"] != held["columns"]:
            problems.append(f"table#{table}'s header is {shown['columns']}, the columns are {held['columns']}")
    expect(not problems, f"{what} (state version {version}): " + "; ".join(problems))
    return state


def no_error_and_nothing_outside(page, playground):
    expect(not page.errors, f"{len(page.errors)} JS errors, the first: {page.errors[:3]}")
    outside = page.requests_outside(PLAYGROUND_PREFIXES + (playground.url.rstrip("/"),))
    expect(not outside, f"the page asked for something beyond the playground: {outside[:5]}")


def answer_prediction(page, choice):
    """Clicks a choice of the visible prediction panel; checks the reveal that follows. Returns the outcome."""
    page.wait_for("(() => { const p = document.querySelector('div#prediction');"
                  " return p && !p.hidden && p.getBoundingClientRect().height > 0; })()",
                  SYNC_TIMEOUT_S, "div#prediction to be visible", show="div#prediction")
    page.click(f'div#prediction [data-choice="{choice}"]')
    reveal = page.wait_for("(() => { const r = document.querySelector('div#reveal');"
                           " return r && !r.hidden && r.dataset.outcome && r.dataset.correct"
                           " ? {outcome: r.dataset.outcome, correct: r.dataset.correct, text: r.textContent.trim()} : null; })()",
                           STEP_TIMEOUT_S, f"div#reveal to show the outcome after predicting {choice}",
                           show="div#prediction, div#reveal")
    expect(reveal["outcome"] in CHOICES + ("other",), f"the reveal's data-outcome is {reveal['outcome']!r}")
    expect(reveal["correct"] == ("true" if reveal["outcome"] == choice else "false"),
           f"predicted {choice}, outcome {reveal['outcome']}: data-correct should say so, not {reveal['correct']}")
    expect(reveal["text"], "the reveal says why, in words")
    return reveal


# ---------------------------------------------------------------------------------------------------------
# Tours
# ---------------------------------------------------------------------------------------------------------

def start_demo_history(grader, scenario, bin_dir, outdir):
    """`grader demo NAME --history FILE`, started now so that it runs while the browser tours."""
    path = os.path.join(outdir, f"{scenario}.demo-history.jsonl")
    command = [grader, "demo", scenario, "--history", path] + (["--bin-dir", bin_dir] if bin_dir else [])
    log = open(os.path.join(outdir, f"{scenario}.demo.log"), "w")
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "NO_COLOR": "1"}, start_new_session=True)
    return proc, path, log


def finish_demo_history(demo):
    proc, path, log = demo
    try:
        proc.wait(timeout=DEMO_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    log.close()
    expect(os.path.exists(path), f"grader demo wrote no history at {path} (exit {proc.returncode}; {log.name})")
    return history_compare.load(path)


def abandon_demo_history(demo):
    """A failed tour does not wait for its `grader demo`: SIGTERM (it stops its servers), then SIGKILL."""
    proc, _, log = demo
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=5)
            break
        except ProcessLookupError:
            break
        except subprocess.TimeoutExpired:
            continue
    log.close()


def tour(browser, playground, scenario, role, outdir, grader, bin_dir):
    """One guided tour, clicked through to its end; its checks as it goes. Returns a one-line summary."""
    demo = start_demo_history(grader, scenario["name"], bin_dir, outdir) if grader else None
    name, started = scenario["name"], time.monotonic()
    page = browser.new_page()
    try:
        page.goto(f"{playground.url}?scenario={name}&role={role}&seed=1&step=0")
        page.wait_for("document.body.dataset.mode === 'tour' && document.body.dataset.waiting === 'step'",
                      STEP_TIMEOUT_S, f"the {name} tour to stop before its step 1")
        state = page_matches_state(page, playground, "before step 1")
        expect(state["session"]["scenario"] == name and state["session"]["role"] == role,
               f"the session is the tour asked for: {state['session']}")
        predictions = []
        for _ in range(MAX_STEPS):
            before = state["session"]["step"]
            page.click("button#next")
            while True:
                waiting = page.wait_for(
                    f"""(() => {{ const b = document.body.dataset;
                        if (b.waiting === 'prediction' || b.waiting === 'finished') return b.waiting;
                        return b.waiting === 'step' && Number(b.step) > {before} ? 'step' : ''; }})()""",
                    STEP_TIMEOUT_S, f"the {name} tour to move on from step {before}", show="ol#narration")
                if waiting != "prediction":
                    break
                reveal = answer_prediction(page, CHOICES[len(predictions) % len(CHOICES)])
                predictions.append(reveal["outcome"])
                page.wait_for("document.body.dataset.waiting !== 'prediction'", STEP_TIMEOUT_S,
                              "the tour to go on after the prediction")
            state = page_matches_state(page, playground, f"after #next from step {before}")
            if state["session"]["step"] != before + 1 and waiting == "step":
                raise AssertionError(f"#next went from step {before} to {state['session']['step']}, not one step")
            if waiting == "finished":
                break
        else:
            raise AssertionError(f"the tour did not finish in {MAX_STEPS} clicks of #next")
        shot = page.screenshot(os.path.join(outdir, f"{name}-{role}.png"))
        verdict = state["session"]["verdict"] or ""
        expect(verdict, "a finished tour has a verdict")
        if role == "flawed":
            expect("FLAW SHOWN" in verdict or "AS PUBLISHED" in verdict, f"the flawed stand shows its flaw: {verdict}")
        else:
            expect("FIXED" in verdict and "NOT FIXED" not in verdict, f"the fixing stand fixes it: {verdict}")
        no_error_and_nothing_outside(page, playground)
        history_matches_demo(playground, scenario, role, outdir, demo)
        demo = None
        return (f"{name} {role}: {state['session']['step']} steps, predictions {predictions or 'none'}, "
                f"{time.monotonic() - started:.1f} s; screenshot {shot}")
    finally:
        if demo:
            abandon_demo_history(demo)


def history_matches_demo(playground, scenario, role, outdir, demo):
    text = playground.get("/api/history.jsonl")
    path = os.path.join(outdir, f"{scenario['name']}-{role}.history.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    valid = subprocess.run([sys.executable, VALIDATE_HISTORY, path], capture_output=True, text=True)
    expect(valid.returncode == 0, f"GET /api/history.jsonl is not a valid history ({path}): {valid.stderr.strip()}")
    if demo is None:
        return
    demo_events = finish_demo_history(demo)
    theirs = history_compare.telling(demo_events, scenario["name"], role)
    if theirs is None:   # a history whose checks do not name the tellings: split where ops start again
        tellings = history_compare.tellings(demo_events)
        index = 0 if role == "flawed" else 1
        expect(len(tellings) > index, f"grader demo's history has {len(tellings)} tellings, none for role {role}")
        theirs = tellings[index]
    ours = history_compare.load(text)
    if scenario["name"] in RACY_SCENARIOS:
        a, b = history_compare.distinct_requests(ours), history_compare.distinct_requests(theirs)
        expect(a and b and (a <= b or b <= a),
               f"the playground and grader demo send different requests ({RACY_SCENARIOS[scenario['name']]}, "
               f"so only the requests are compared): {sorted(a ^ b)[:3]}")
        return
    problem = history_compare.difference(ours, theirs)
    expect(problem is None, f"the tour's history is not grader demo's ({path}): {problem}")


# ---------------------------------------------------------------------------------------------------------
# Free mode
# ---------------------------------------------------------------------------------------------------------

def free_mode_repeat(browser, playground, stand, expected_outcome, expected_ledger_rows, outdir):
    """Sends with key k1, sends again with k1, predicts "replay"; the reveal and the ledger must say what
    this stand does with a repeat."""
    started = time.monotonic()
    page = browser.new_page()
    page.goto(f"{playground.url}?stand={stand}&seed=1")
    page.wait_for("document.body.dataset.mode === 'free' && ['ready', 'step'].includes(document.body.dataset.waiting)",
                  STEP_TIMEOUT_S, f"free mode on {stand} to be ready")
    state = page_matches_state(page, playground, f"free mode on {stand}, before sending")
    expect(state["session"]["stand"]["binary"] == stand, f"the stand is {stand}: {state['session']['stand']}")
    if not page.evaluate("document.querySelector('input#amount').value"):
        page.type("input#amount", "1500")
    page.type("input#key", "k1")
    page.click("button#send")
    page.wait_for("""(() => fetch('/api/state').then(r => r.json()).then(s =>
                      s.history.some(e => ['ok', 'fail', 'unknown'].includes(e.type))))()""",
                  STEP_TIMEOUT_S, "the first send to be answered")
    state = page_matches_state(page, playground, "after the first send")
    expect(len(state["ledger"]["rows"]) == 1, f"the first send moved the money once: {state['ledger']['rows']}")
    page.type("input#key", "k1")
    page.click("button#send")
    reveal = answer_prediction(page, "replay")
    expect(reveal["outcome"] == expected_outcome, f"on {stand} a repeat of k1 is {expected_outcome}, "
                                                  f"the reveal says {reveal['outcome']}: {reveal['text'][:200]}")
    page.wait_for(f"""(() => fetch('/api/state').then(r => r.json()).then(s =>
                      s.history.filter(e => ['ok', 'fail', 'unknown'].includes(e.type)).length >= 2
                      && s.session.waiting !== 'busy'))()""", STEP_TIMEOUT_S, "the repeat to be answered")
    state = page_matches_state(page, playground, "after the repeat")
    expect(len(state["ledger"]["rows"]) == expected_ledger_rows,
           f"the ledger holds {len(state['ledger']['rows'])} rows, not {expected_ledger_rows}")
    shot = page.screenshot(os.path.join(outdir, f"free-{stand}.png"))
    no_error_and_nothing_outside(page, playground)
    print(f"     free mode {stand}: reveal {reveal['outcome']} (correct={reveal['correct']}), "
          f"{expected_ledger_rows} ledger rows, {time.monotonic() - started:.1f} s; screenshot {shot}")


# ---------------------------------------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--playground", required=True, help="the playground binary")
    p.add_argument("--grader", help="the grader binary: tours compare their history with `grader demo`'s")
    p.add_argument("--bin-dir", help="the stage binaries (passed to playground and grader demo)")
    p.add_argument("--outdir", default=None, help="screenshots and histories (default: a temporary folder)")
    p.add_argument("--only", choices=("tours", "free"), help="run only the tours, or only free mode")
    p.add_argument("--scenario", action="append", help="tour only this scenario (repeatable)")
    p.add_argument("--role", action="append", choices=("flawed", "fixing"), help="tour roles (default: flawed)")
    return p.parse_args()


def main():
    args = parse_args()
    exit_if_no_chromium()
    exit_cleanly_on_sigterm()
    outdir = args.outdir or tempfile.mkdtemp(prefix="playground-test-")
    os.makedirs(outdir, exist_ok=True)
    checks = Checklist()
    started = time.monotonic()
    with Playground(args.playground, args.bin_dir) as playground, cdp.Browser() as browser:
        print(f"playground: {playground.url}  chromium: {browser.version}  output: {outdir}")
        if args.only in (None, "tours"):
            scenarios = playground.get_json("/api/scenarios")
            if args.scenario:
                unknown = set(args.scenario) - {s["name"] for s in scenarios}
                if unknown:
                    checks.fail("the scenarios asked for exist", f"no scenario {sorted(unknown)}")
                scenarios = [s for s in scenarios if s["name"] in args.scenario]
            checks.run("GET /api/scenarios lists scenarios", expect, bool(scenarios), "no scenario listed")
            for scenario in scenarios:
                for role in args.role or ["flawed"]:
                    if role == "fixing" and not scenario.get("fixing"):
                        continue
                    summary = []
                    ok = checks.run(f"tour {scenario['name']} ({role}) clicks through, the page shows the state, "
                                    f"the history is grader demo's",
                                    lambda s=scenario, r=role: summary.append(
                                        tour(browser, playground, s, r, outdir, args.grader, args.bin_dir)))
                    if ok:
                        print(f"     {summary[0]}")
        if args.only in (None, "free"):
            checks.run("free mode on stage 1: a repeat of k1 moves the money again (reveal new-debit, 2 rows)",
                       free_mode_repeat, browser, playground, "stage1_naive", "new-debit", 2, outdir)
            checks.run("free mode on stage 5: a repeat of k1 is replayed (reveal replay, 1 row)",
                       free_mode_repeat, browser, playground, "stage5_replay", "replay", 1, outdir)
    print(f"playground test: {time.monotonic() - started:.1f} s")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
