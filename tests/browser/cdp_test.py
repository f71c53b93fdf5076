#!/usr/bin/env python3
"""cdp_test.py: the browser tests' own harness (tests/browser/cdp.py) works: it clicks, types, presses keys,
waits, evaluates, takes screenshots, reports every JS error and every request, and leaves no chromium behind.
Run on a fixture page (tests/browser/fixtures/harness_page.html) and on data: URLs; no lab code involved.

    cdp_test.py [SCREENSHOT_DIR]      # default: a temporary folder

Exit 77 (ctest's SKIP_RETURN_CODE) when chromium is not installed.
"""
import os
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402
from checklist import Checklist, exit_cleanly_on_sigterm, exit_if_no_chromium, expect  # noqa: E402

FIXTURE_URL = "file://" + os.path.join(HERE, "fixtures", "harness_page.html")


def data_url(html):
    return "data:text/html," + urllib.parse.quote(html)


def fresh_fixture(browser):
    page = browser.new_page()
    page.goto(FIXTURE_URL)
    return page


def goto_waits_for_the_load_event(browser):
    page = fresh_fixture(browser)
    expect(page.evaluate("document.readyState") == "complete", "readyState is complete after goto")
    expect(page.evaluate("document.title") == "CDP harness fixture", "the fixture's title")


def evaluate_returns_values_and_awaits_promises(browser):
    page = browser.new_page()
    page.goto(data_url("<p>x</p>"))
    expect(page.evaluate("1 + 2") == 3, "a number")
    expect(page.evaluate("'a' + 'b'") == "ab", "a string")
    expect(page.evaluate("({a: [1, null, true]})") == {"a": [1, None, True]}, "an object")
    expect(page.evaluate("new Promise(r => setTimeout(() => r('later'), 50))") == "later", "an awaited promise")


def evaluate_raises_with_the_exception_text(browser):
    page = browser.new_page()
    page.goto(data_url("<p>x</p>"))
    try:
        page.evaluate("(() => { throw new TypeError('the script said no'); })()")
    except cdp.JSError as e:
        expect("TypeError: the script said no" in str(e), f"the JSError carries the text: {e}")
    else:
        raise AssertionError("no JSError raised")


def click_runs_the_handler_each_time(browser):
    page = fresh_fixture(browser)
    page.click("#count")
    page.click("#count")
    expect(page.evaluate("document.getElementById('clicks').textContent") == "2", "two clicks counted")


def click_scrolls_a_far_element_into_view(browser):
    page = fresh_fixture(browser)
    page.click("#bottom")
    expect(page.evaluate("document.getElementById('bottom-clicked').textContent") == "yes", "the far button clicked")


def click_waits_for_a_moving_element_to_stop(browser):
    page = fresh_fixture(browser)
    page.click("#glide")   # #count now slides 300 px to the right, for 400 ms
    page.click("#count")   # so its centre is taken once it stands still
    expect(page.evaluate("document.getElementById('clicks').textContent") == "1", "the click reached #count")


def click_says_when_the_element_moved_away(browser):
    page = fresh_fixture(browser)
    try:
        page.click("#dodge")
    except AssertionError as e:
        expect("the click landed" in str(e), f"it says where the click went: {e}")
    else:
        raise AssertionError("a click that missed its element passed for one that hit it")


def click_refuses_missing_hidden_and_covered_elements(browser):
    page = fresh_fixture(browser)
    for selector, reason in (("#no-such-thing", "no element matches"), ("#hidden-button", "no box"),
                             ("#covered", "covered by"), ("#disabled-button", "disabled")):
        try:
            page.click(selector)
        except AssertionError as e:
            expect(reason in str(e), f"clicking {selector} says '{reason}': {e}")
        else:
            raise AssertionError(f"clicking {selector} did not raise")


def type_replaces_the_value_with_real_key_events(browser):
    page = fresh_fixture(browser)
    page.type("#key", "rent-1 K")
    expect(page.evaluate("document.getElementById('key').value") == "rent-1 K", "the input holds the typed text")
    expect(page.evaluate("document.getElementById('echo').textContent") == "rent-1 K", "input events fired")
    page.type("#key", "+2", replace=False)
    expect(page.evaluate("document.getElementById('key').value") == "rent-1 K+2", "typing on appends")


def press_enter_tab_and_letters(browser):
    page = fresh_fixture(browser)
    page.focus("#count")
    page.press("Enter")
    expect(page.evaluate("document.getElementById('clicks').textContent") == "1", "Enter on a button clicks it")
    page.focus("#key")
    page.press("Tab")
    expect(page.evaluate("document.activeElement.id") == "later", "Tab moves focus to the next control")
    page.evaluate("document.activeElement.blur()")
    page.press("n")
    page.press("b")
    expect(page.evaluate("document.getElementById('keys').textContent") == "n b ", "letters reach keydown listeners")


def wait_for_returns_once_true(browser):
    page = fresh_fixture(browser)
    page.click("#later")
    start = time.monotonic()
    page.wait_for("!document.getElementById('message').hidden", 5, "the message to show")
    # At least the page's 300 ms; the upper bound only says it did not wait out its 5 s (a loaded machine
    # may take seconds to run the page's timer, and that is no fault of wait_for).
    expect(0.2 < time.monotonic() - start < 5, "it returned once the message showed, after the page's 300 ms")


def wait_for_times_out_naming_what_with_the_dom(browser):
    page = fresh_fixture(browser)
    start = time.monotonic()
    try:
        page.wait_for("document.querySelector('#never')", 0.5, "an element that never comes")
    except cdp.WaitTimeout as e:
        took = time.monotonic() - start
        text = str(e)
        expect("an element that never comes" in text, f"the message names what was awaited: {text[:200]}")
        expect('id="count"' in text, "the message shows the DOM")
        # Not much more than the timeout: 10 s is far above it and far below a wait that never ends, so a
        # loaded machine cannot fail this.
        expect(0.5 <= took < 10, f"it waited the timeout, not much more ({took:.2f} s)")
    else:
        raise AssertionError("no WaitTimeout raised")


def uncaught_exceptions_and_console_errors_are_reported(browser):
    page = fresh_fixture(browser)
    expect(page.errors == [], f"a clean page has no errors: {page.errors}")
    page.click("#throw")
    page.browser.pump_for(0.3)   # the page throws from a timer: its event comes a moment later
    expect(any("the fixture threw on purpose" in e for e in page.errors), f"the uncaught error: {page.errors}")
    page.click("#console-error")
    page.browser.pump_for(0.3)
    expect(any("the fixture logged an error" in e for e in page.errors), f"console.error: {page.errors}")


def screenshot_writes_a_png(browser, outdir):
    page = fresh_fixture(browser)
    path = page.screenshot(os.path.join(outdir, "cdp-harness-fixture.png"))
    with open(path, "rb") as f:
        data = f.read()
    expect(data.startswith(b"\x89PNG\r\n\x1a\n"), "a PNG signature")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    expect(width == cdp.VIEWPORT[0] and height > 2000, f"the whole page, {width}x{height}")
    print(f"     screenshot: {path}")


def requests_are_recorded_and_nothing_leaves_the_machine(browser):
    page = fresh_fixture(browser)
    expect(page.requests_outside() == [], f"the fixture asks for nothing outside: {page.requests}")
    expect(any(url.startswith("file://") for url in page.requests), f"its own file is recorded: {page.requests}")
    outcome = page.evaluate("fetch('http://example.com/x').then(() => 'answered', e => 'failed: ' + e.message)")
    expect(outcome.startswith("failed"), f"a request beyond the machine fails: {outcome}")
    expect(page.requests_outside() == ["http://example.com/x"], f"and is recorded: {page.requests_outside()}")
    page.errors.clear()   # the failed fetch logs a network error, as it should


def the_browser_is_gone_after_the_with_block():
    with cdp.Browser() as browser:
        browser.new_page().goto(data_url("<p>x</p>"))
        profile = browser._profile
        expect(len(browser.process_ids()) >= 2, f"chromium and helpers run: {browser.process_ids()}")
    expect(cdp.processes_with_argument(f"--user-data-dir={profile}") == [], "no chromium process is left")
    expect(not os.path.exists(profile), "its profile folder is removed")


def the_browser_is_gone_after_an_exception_too():
    try:
        with cdp.Browser() as browser:
            profile = browser._profile
            raise KeyError("a test failed inside the block")
    except KeyError:
        pass
    expect(cdp.processes_with_argument(f"--user-data-dir={profile}") == [], "no chromium process is left")


def main():
    exit_if_no_chromium()
    exit_cleanly_on_sigterm()
    outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="cdp-test-")
    checks = Checklist()
    start = time.monotonic()
    with cdp.Browser() as browser:
        print(f"chromium: {browser.version} (launched in {time.monotonic() - start:.1f} s)")
        checks.run("goto waits for the load event", goto_waits_for_the_load_event, browser)
        checks.run("evaluate returns values and awaits promises", evaluate_returns_values_and_awaits_promises, browser)
        checks.run("evaluate raises with the exception's text", evaluate_raises_with_the_exception_text, browser)
        checks.run("click runs the handler each time", click_runs_the_handler_each_time, browser)
        checks.run("click scrolls a far element into view", click_scrolls_a_far_element_into_view, browser)
        checks.run("click waits until the element stands still", click_waits_for_a_moving_element_to_stop, browser)
        checks.run("click says so when the element moves away under the mouse", click_says_when_the_element_moved_away,
                   browser)
        checks.run("click refuses missing, hidden, covered and disabled elements",
                   click_refuses_missing_hidden_and_covered_elements, browser)
        checks.run("type replaces the value with real key events", type_replaces_the_value_with_real_key_events, browser)
        checks.run("press: Enter clicks, Tab moves focus, letters reach listeners", press_enter_tab_and_letters, browser)
        checks.run("wait_for returns once its predicate is true", wait_for_returns_once_true, browser)
        checks.run("wait_for times out naming what it waited for, with the DOM",
                   wait_for_times_out_naming_what_with_the_dom, browser)
        checks.run("uncaught exceptions and console errors are reported",
                   uncaught_exceptions_and_console_errors_are_reported, browser)
        checks.run("screenshot writes a PNG of the whole page", screenshot_writes_a_png, browser, outdir)
        checks.run("requests are recorded, and nothing leaves the machine",
                   requests_are_recorded_and_nothing_leaves_the_machine, browser)
    checks.run("no chromium process is left after the with block", the_browser_is_gone_after_the_with_block)
    checks.run("nor after an exception inside it", the_browser_is_gone_after_an_exception_too)
    print(f"cdp harness: {time.monotonic() - start:.1f} s")
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
