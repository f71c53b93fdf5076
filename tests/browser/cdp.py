"""cdp.py: a small Chrome DevTools Protocol client, standard library only, for the lab's browser tests
(tests/browser/; docs/teach/the-playground.md "The playground"). It drives Debian's `chromium` headless through
--remote-debugging-pipe: the browser reads commands on its fd 3 and writes answers and events on its fd 4,
one JSON message each, ended by a NUL byte. No websocket, no port, no package beyond Python 3.11.

    with cdp.Browser() as browser:          # launches chromium; on exit closes it and kills what is left
        page = browser.new_page()
        page.goto("file:///.../report.html")  # returns after the load event
        page.click("button#next")              # a real mouse click at the element's centre
        page.type("input#key", "k1")           # real key events; replaces what the input held
        page.press("Enter")
        page.wait_for("document.body.dataset.waiting == 'finished'", 10, "the tour to finish")
        page.evaluate("document.title")        # -> the value; a JS exception raises JSError with its text
        page.screenshot("out.png")
        assert not page.errors                 # console errors and uncaught exceptions, as text

Not thread-safe: one thread talks to one Browser. The client is synchronous: every command waits for its
answer and handles the events that arrive meanwhile (errors, requests, load), so nothing runs behind the
test's back.

The browser reaches nothing but this machine: every host name resolves to nothing except 127.0.0.1 and
localhost (--host-resolver-rules), background services are off, and each page records every request it
made (page.requests), so a test can fail on one that should not be there (page.requests_outside()).
"""
import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

# Times, in seconds. A cold chromium starts in about 0.6 s here; a slow CI machine may take several.
LAUNCH_TIMEOUT_S = 30
COMMAND_TIMEOUT_S = 20        # one CDP command; a page's load waits as long
CLOSE_TIMEOUT_S = 3           # after Browser.close, before the process group is killed
POLL_INTERVAL_S = 0.05        # wait_for's period
DOM_EXCERPT_CHARS = 3000      # of document.body.outerHTML, in a wait_for timeout's message
VIEWPORT = (1280, 900)        # CSS pixels; screenshots are this wide
# A full-page screenshot stops here: the matrix's report is over 100,000 pixels tall, which chromium cannot
# paint in one picture in any useful time (and nobody reads); its top shows the matrix.
SCREENSHOT_MAX_HEIGHT = 8000  # CSS pixels
STABLE_FRAMES = 3             # click(): the element kept its box this many frames in a row...
STABLE_FRAMES_MAX = 60        # ...or a second of frames passed (an element that never stops moving)

FAVICON = "/favicon.ico"

# Only these URLs are "ours": a page that asks for anything else is reported by requests_outside().
CLICK_ATTEMPTS = 3   # a click that hit the background because the page scrolled meanwhile is tried again
LOCAL_PREFIXES = ("file://", "http://127.0.0.1:", "http://localhost:", "data:", "about:", "blob:")

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",                    # tests run as root in CI; the sandbox refuses root
    "--disable-gpu",
    "--disable-dev-shm-usage",         # a container's /dev/shm may be 64 MB: shared memory goes to /tmp
    "--remote-debugging-pipe",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--metrics-recording-only",
    "--mute-audio",
    "--hide-scrollbars",
    "--force-color-profile=srgb",      # screenshots look the same on every machine
    # Nothing beyond this machine: names other than these do not resolve.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
    f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}",
]

# press(): the keys a test names, as CDP wants them (key, code, Windows virtual key code, text typed).
NAMED_KEYS = {
    "Enter": ("Enter", "Enter", 13, "\r"),
    "Tab": ("Tab", "Tab", 9, ""),
    "Escape": ("Escape", "Escape", 27, ""),
    "Backspace": ("Backspace", "Backspace", 8, ""),
    "Space": (" ", "Space", 32, " "),
    "ArrowUp": ("ArrowUp", "ArrowUp", 38, ""),
    "ArrowDown": ("ArrowDown", "ArrowDown", 40, ""),
    "ArrowLeft": ("ArrowLeft", "ArrowLeft", 37, ""),
    "ArrowRight": ("ArrowRight", "ArrowRight", 39, ""),
}
SHIFT_MODIFIER = 8


class BrowserError(RuntimeError):
    """The browser could not be started, died, or answered a command with an error."""


class JSError(RuntimeError):
    """page.evaluate's script threw: the message is the exception's text (and its stack, if any)."""


class WaitTimeout(AssertionError):
    """page.wait_for's predicate stayed false: the message says what was awaited and shows the DOM."""


def find_chromium():
    """The chromium to drive: $LAB_CHROMIUM, else `chromium` on PATH (Debian's), else None."""
    explicit = os.environ.get("LAB_CHROMIUM")
    if explicit:
        return explicit
    return shutil.which("chromium")


def _js_string(text):
    return json.dumps(text)


# ---------------------------------------------------------------------------------------------------------
# The browser: one chromium process (group), the pipe, and the message loop.
# ---------------------------------------------------------------------------------------------------------

class Browser:
    """A headless chromium for the length of a `with` block. Always gone after it: closed politely, then
    its process group killed, then its profile directory removed."""

    def __init__(self, chromium=None, launch_timeout_s=LAUNCH_TIMEOUT_S):
        self.chromium = chromium or find_chromium()
        if not self.chromium:
            raise BrowserError("chromium is not installed (scripts/ensure-deps.sh browser)")
        self.launch_timeout_s = launch_timeout_s
        self._proc = None
        self._profile = None
        self._to_browser = None     # our end of its fd 3
        self._from_browser = None   # our end of its fd 4
        self._buffer = b""
        self._next_id = 0
        self._answers = {}          # id -> message, answers read while waiting for another
        self._pages = {}            # CDP session id -> Page, whose events they are
        self.stderr_path = None

    def __enter__(self):
        self.launch()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def launch(self):
        self._profile = tempfile.mkdtemp(prefix="lab-chromium-")
        self.stderr_path = os.path.join(self._profile, "chromium.stderr")
        commands_read, commands_write = os.pipe()
        answers_read, answers_write = os.pipe()

        def put_pipes_on_fds_3_and_4():   # in the child, before exec: chromium's fixed pipe fds
            # First out of the way (a pipe may itself be fd 3 or 4), then into place.
            high_read = fcntl.fcntl(commands_read, fcntl.F_DUPFD, 10)
            high_write = fcntl.fcntl(answers_write, fcntl.F_DUPFD, 10)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        with open(self.stderr_path, "wb") as stderr:
            # start_new_session: chromium and all its helpers share one process group, killed as one.
            self._proc = subprocess.Popen(
                [self.chromium, *CHROMIUM_FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr, pass_fds=(3, 4),
                preexec_fn=put_pipes_on_fds_3_and_4, start_new_session=True)
        os.close(commands_read)
        os.close(answers_write)
        self._to_browser, self._from_browser = commands_write, answers_read
        try:
            version = self.send("Browser.getVersion", timeout_s=self.launch_timeout_s)
        except BaseException:
            self.close()
            raise
        self.version = version.get("product", "?")

    def close(self):
        """Closes the browser: Browser.close, then SIGKILL to its process group whatever happened, then
        the profile directory. Safe to call twice."""
        if self._proc is not None:
            if self._proc.poll() is None and self._to_browser is not None:
                try:
                    self._write({"id": self._new_id(), "method": "Browser.close"})
                    self._proc.wait(timeout=CLOSE_TIMEOUT_S)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)   # helpers that outlived the browser, if any
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self._proc.wait(timeout=CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        for fd in (self._to_browser, self._from_browser):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._to_browser = self._from_browser = None
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
        self._proc = None

    def process_ids(self):
        """The ids of every live process started for this browser (its profile path is on their command
        line): empty once the browser is closed."""
        if self._profile is None:
            return []
        return processes_with_argument(f"--user-data-dir={self._profile}")

    def stderr_tail(self, lines=20):
        try:
            with open(self.stderr_path, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except (OSError, TypeError):
            return ""

    # ---- pages ---------------------------------------------------------------------------------------

    def new_page(self):
        """A new tab, attached in flat mode (its messages carry its session id), with the domains the tests
        rely on enabled and a fixed viewport."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        self._pages[session] = page
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send("Page.setLifecycleEventsEnabled", {"enabled": True}, session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False},
                  session=session)
        return page

    # ---- the message loop ----------------------------------------------------------------------------

    def send(self, method, params=None, session=None, timeout_s=COMMAND_TIMEOUT_S):
        """Sends one command and returns its result; events that arrive meanwhile go to their page."""
        message_id = self._new_id()
        message = {"id": message_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._write(message)
        deadline = time.monotonic() + timeout_s
        while message_id not in self._answers:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError(f"{method}: no answer within {timeout_s} s")
            self.pump(remaining)
        answer = self._answers.pop(message_id)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')} {answer['error'].get('data', '')}")
        return answer.get("result", {})

    def pump(self, timeout_s):
        """Reads and dispatches what the browser sent, waiting at most timeout_s for the first byte."""
        if self._from_browser is None:
            raise BrowserError("the browser is closed")
        ready, _, _ = select.select([self._from_browser], [], [], max(0.0, timeout_s))
        if not ready:
            return
        chunk = os.read(self._from_browser, 1 << 20)
        if not chunk:
            raise BrowserError("chromium closed its pipe (it died?); its stderr ends:\n" + self.stderr_tail())
        self._buffer += chunk
        *messages, self._buffer = self._buffer.split(b"\0")
        for raw in messages:
            self._dispatch(json.loads(raw))

    def pump_for(self, seconds):
        """Handles every event that arrives in the next `seconds` (pump returns at the first chunk)."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            self.pump(remaining)

    def _dispatch(self, message):
        if "id" in message:
            self._answers[message["id"]] = message
            return
        page = self._pages.get(message.get("sessionId"))
        if page is not None:
            page._on_event(message["method"], message.get("params", {}))

    def _write(self, message):
        data = json.dumps(message).encode() + b"\0"
        while data:
            written = os.write(self._to_browser, data)
            data = data[written:]

    def _new_id(self):
        self._next_id += 1
        return self._next_id


def processes_with_argument(argument):
    """Pids of the live processes with `argument` in their command line (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        # A substring: chromium's helpers rewrite their command line into one space-separated string.
        if state != b"Z" and any(argument.encode() in arg for arg in args):
            found.append(int(entry))
    return found


# ---------------------------------------------------------------------------------------------------------
# A page: one tab, and what happened in it.
# ---------------------------------------------------------------------------------------------------------

class Page:
    """One tab. `errors`: every console.error, uncaught exception and browser error log entry, as text, in
    order. `requests`: every URL the page asked for. Both keep accumulating across goto()."""

    def __init__(self, browser, target_id, session_id):
        self.browser = browser
        self.target_id = target_id
        self.session_id = session_id
        self.errors = []
        self.requests = []
        self.failed_requests = []   # (url, error text) of requests that did not complete
        self._request_urls = {}     # CDP request id -> URL
        self._loads = 0             # Page.loadEventFired seen

    def send(self, method, params=None, timeout_s=COMMAND_TIMEOUT_S):
        return self.browser.send(method, params, session=self.session_id, timeout_s=timeout_s)

    def _on_event(self, method, params):
        if method == "Page.loadEventFired":
            self._loads += 1
        elif method == "Runtime.exceptionThrown":
            self.errors.append("uncaught exception: " + exception_text(params["exceptionDetails"]))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.errors.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            if entry.get("url", "").endswith(FAVICON):
                return   # the browser asks for it on its own, whatever the page says; not the page's error
            self.errors.append(f"{entry.get('source', 'log')} error: {entry.get('text', '')} {entry.get('url', '')}".rstrip())
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            self._request_urls[params["requestId"]] = url
            self.requests.append(url)
        elif method == "Network.loadingFailed":
            url = self._request_urls.get(params["requestId"], "?")
            self.failed_requests.append((url, params.get("errorText", "")))

    def close(self):
        """Closes the tab; the other tabs go on."""
        self.browser.send("Target.closeTarget", {"targetId": self.target_id})
        self.browser._pages.pop(self.session_id, None)

    def requests_outside(self, prefixes=LOCAL_PREFIXES):
        """The URLs this page asked for that are not of this machine (or not among `prefixes`)."""
        return [url for url in self.requests if not url.startswith(prefixes)]

    # ---- navigation and scripts ----------------------------------------------------------------------

    def goto(self, url, timeout_s=COMMAND_TIMEOUT_S):
        """Navigates and returns after the page's load event (its scripts have run, its images loaded)."""
        loads_before = self._loads
        result = self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"goto {url}: {result['errorText']}")
        deadline = time.monotonic() + timeout_s
        while self._loads == loads_before:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError(f"goto {url}: no load event within {timeout_s} s")
            self.browser.pump(remaining)

    def evaluate(self, js, timeout_s=COMMAND_TIMEOUT_S):
        """The value of the expression `js` (JSON-able values come back as Python values; a promise is
        awaited). A script that throws raises JSError with the exception's text."""
        result = self.send("Runtime.evaluate", {"expression": js, "returnByValue": True, "awaitPromise": True,
                                                "userGesture": True}, timeout_s=timeout_s)
        if "exceptionDetails" in result:
            raise JSError(f"{exception_text(result['exceptionDetails'])}\n  in: {js[:300]}")
        return result["result"].get("value")

    def wait_for(self, js_predicate, timeout_s, what, show=None):
        """Polls the expression until it is truthy; returns its value. On timeout raises WaitTimeout naming
        `what` (what the test waited for) with an excerpt of the DOM as it was then: the elements matching
        the selector `show` if given (what the wait is about), else the body."""
        deadline = time.monotonic() + timeout_s
        while True:
            value = self.evaluate(js_predicate)
            if value:
                return value
            if time.monotonic() >= deadline:
                raise WaitTimeout(f"timed out after {timeout_s} s waiting for {what}\n"
                                  f"  predicate: {js_predicate}\n  DOM: {self.dom_excerpt(show=show)}")
            self.browser.pump(POLL_INTERVAL_S)   # events keep flowing while we wait

    def dom_excerpt(self, chars=DOM_EXCERPT_CHARS, show=None):
        """The body's own tag (its data-* attributes say much) and the outerHTML of the elements matching
        `show`, or of the whole body; cut at `chars`."""
        script = ("document.body ? document.body.outerHTML : document.documentElement.outerHTML" if not show else
                  f"(document.body ? document.body.outerHTML.split('>')[0] + '> ... ' : '') + "
                  f"[...document.querySelectorAll({_js_string(show)})].map(e => e.outerHTML).join('\\n')")
        try:
            html = self.evaluate(script)
        except (JSError, BrowserError) as e:
            return f"(no DOM: {e})"
        html = html or ""
        return html if len(html) <= chars else html[:chars] + f"... ({len(html) - chars} more characters)"

    # ---- input: real mouse and key events, as a person makes them -----------------------------------

    def element_centre(self, selector):
        """Scrolls the element into view, waits until it stops moving, and returns its centre in viewport
        pixels. Raises if there is no such element, if it is disabled (a click would do nothing), if it has
        no box (hidden), or if another element covers its centre.

        Why wait: a page that scrolls smoothly (scrollIntoView({behavior: 'smooth'}) after a reveal) moves
        the element for a few hundred ms; a click at coordinates taken mid-animation lands beside it."""
        where = self.evaluate(f"""(async () => {{
            const el = document.querySelector({_js_string(selector)});
            if (!el) return {{problem: "no element matches"}};
            if (el.disabled || el.closest("fieldset:disabled")) return {{problem: "it is disabled"}};
            el.scrollIntoView({{block: "center", inline: "center", behavior: "instant"}});
            const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
            let r = el.getBoundingClientRect(), still = 0;
            for (let i = 0; i < {STABLE_FRAMES_MAX} && still < {STABLE_FRAMES}; i++) {{
                await frame();
                const now = el.getBoundingClientRect();
                still = now.x === r.x && now.y === r.y && now.width === r.width && now.height === r.height ? still + 1 : 0;
                r = now;
            }}
            if (r.bottom < 0 || r.top > innerHeight) el.scrollIntoView({{block: "center", behavior: "instant"}});
            r = el.getBoundingClientRect();
            if (r.width === 0 || r.height === 0) return {{problem: "it has no box (hidden?)"}};
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const top = document.elementFromPoint(x, y);
            if (top && top !== el && !el.contains(top) && !(top.contains && top.contains(el)))
                return {{problem: "it is covered by " + top.outerHTML.slice(0, 120)}};
            // click() asks afterwards where the click went: one listener per click, the latest one counts.
            const token = (window.__cdpClickToken || 0) + 1;
            window.__cdpClickToken = token;
            window.__cdpClickLanded = null;
            document.addEventListener("click", (e) => {{
                if (window.__cdpClickToken !== token) return;
                window.__cdpClickLanded = el.contains(e.target) ? "on it"
                    : "on " + (e.target.outerHTML || String(e.target)).slice(0, 120);
            }}, {{capture: true, once: true}});
            return {{x, y}};
        }})()""")
        if "problem" in where:
            raise AssertionError(f"cannot click {selector}: {where['problem']}\n  DOM: {self.dom_excerpt(1500)}")
        return where["x"], where["y"]

    def click(self, selector):
        """A left click at the element's centre (mouse moved, pressed, released). Raises if the click did
        not reach the element, rather than let the test wait in vain. One case is tried again: the page
        scrolled under the mouse between measuring and clicking (a reveal the page scrolls into view when a
        state arrives, on a loaded machine), so the click hit the page's own background (html or body),
        which does nothing; the element is measured again and clicked, at most CLICK_ATTEMPTS times."""
        for attempt in range(1, CLICK_ATTEMPTS + 1):
            x, y = self.element_centre(selector)
            self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
            for kind in ("mousePressed", "mouseReleased"):
                self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
            landed = self.evaluate("window.__cdpClickLanded")
            if landed == "on it":
                return
            on_background = landed is not None and landed.startswith(("on <html", "on <body"))
            if not on_background or attempt == CLICK_ATTEMPTS:
                raise AssertionError(f"clicking {selector} at ({x:.0f}, {y:.0f}): the click landed "
                                     f"{landed or 'nowhere (no click event)'}")

    def focus(self, selector):
        found = self.evaluate(f"""(() => {{ const el = document.querySelector({_js_string(selector)});
            if (!el) return false; el.focus(); return document.activeElement === el; }})()""")
        if not found:
            raise AssertionError(f"cannot focus {selector}: no such element, or it takes no focus")

    def type(self, selector, text, replace=True):
        """Focuses the element and types `text` key by key; with replace, what it held is selected first so
        the typing replaces it (as a person who selects all, then types)."""
        self.focus(selector)
        if replace:
            self.evaluate(f"document.querySelector({_js_string(selector)}).select?.()")
        for ch in text:
            self._key(ch, ch, 0, ch)

    def press(self, key):
        """One key on whatever has focus: a name of NAMED_KEYS ("Enter", "Tab", ...) or one character."""
        if key in NAMED_KEYS:
            self._key(*NAMED_KEYS[key])
        elif len(key) == 1:
            self._key(key, "Key" + key.upper() if key.isalpha() else "", ord(key.upper()) if key.isalnum() else 0, key)
        else:
            raise ValueError(f"press: unknown key {key!r} (known: {', '.join(NAMED_KEYS)} or one character)")

    def _key(self, key, code, virtual_code, text):
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
                "windowsVirtualKeyCode": virtual_code, "nativeVirtualKeyCode": virtual_code}
        if text:
            down["text"] = text
            down["unmodifiedText"] = text
        if len(key) == 1 and key.isupper():
            down["modifiers"] = SHIFT_MODIFIER
        self.send("Input.dispatchKeyEvent", down)
        up = {k: v for k, v in down.items() if k not in ("text", "unmodifiedText")}
        up["type"] = "keyUp"
        self.send("Input.dispatchKeyEvent", up)

    # ---- pictures ------------------------------------------------------------------------------------

    def screenshot(self, path, full_page=True):
        """Writes a PNG of the page: the whole page, scrolled content included, up to SCREENSHOT_MAX_HEIGHT
        pixels from the top (unless full_page=False: the viewport)."""
        params = {"format": "png"}
        self.send("Page.bringToFront")   # a tab in the background may paint nothing
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": max(size[0], 1),
                              "height": max(min(size[1], SCREENSHOT_MAX_HEIGHT), 1), "scale": 1}
        data = base64.b64decode(self.send("Page.captureScreenshot", params)["data"])
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path


def exception_text(details):
    """The text of a CDP exceptionDetails: the exception's description (message and stack) if any."""
    exception = details.get("exception") or {}
    text = exception.get("description") or exception.get("value") or details.get("text", "exception")
    return str(text)
