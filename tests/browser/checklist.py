"""checklist.py: how the browser tests (tests/browser/*_test.py) run their checks and say what they found.

    checks = Checklist()
    checks.run("clicking a button runs its handler", lambda: ...)   # prints "ok" or "FAIL" with the reason
    sys.exit(checks.finish())                                       # "N passed, M failed"; exit 1 if any failed

A check fails by raising (an AssertionError with a sentence, a cdp.WaitTimeout, ...); the next check still
runs. exit_if_no_chromium() is the ctest skip (exit 77, SKIP_RETURN_CODE): `make test` installs chromium
(scripts/ensure-deps.sh browser), a bare ctest on a machine without it skips these tests.
"""
import signal
import sys
import time
import traceback

SKIP = 77


def exit_if_no_chromium():
    import cdp
    if cdp.find_chromium() is None:
        print("SKIP: chromium is not installed (scripts/ensure-deps.sh browser installs it)")
        sys.exit(SKIP)


def exit_cleanly_on_sigterm():
    """A test killed by SIGTERM (ctest's timeout, Ctrl-C's cousins) still runs its `with` blocks' exits,
    so no chromium and no server outlives it."""
    def raise_exit(signum, _frame):
        raise SystemExit(f"killed by signal {signum}")
    signal.signal(signal.SIGTERM, raise_exit)


class Checklist:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def run(self, sentence, check, *args):
        """Runs check(*args); one line: ok or FAIL, the sentence, the time taken."""
        start = time.monotonic()
        try:
            check(*args)
        except Exception as e:   # noqa: BLE001  any failure of one check is reported, the next still runs
            took = time.monotonic() - start
            reason = str(e) or type(e).__name__
            if not isinstance(e, AssertionError):
                reason = f"{type(e).__name__}: {reason}\n{traceback.format_exc(limit=4)}"
            print(f"FAIL {sentence} ({took:.1f} s)\n     {reason}", flush=True)
            self.failed.append(sentence)
            return False
        print(f"ok   {sentence} ({time.monotonic() - start:.1f} s)", flush=True)
        self.passed += 1
        return True

    def fail(self, sentence, reason):
        print(f"FAIL {sentence}\n     {reason}", flush=True)
        self.failed.append(sentence)

    def finish(self):
        print(f"{self.passed} passed, {len(self.failed)} failed", flush=True)
        return 1 if self.failed else 0


def expect(condition, sentence):
    """assert with a message that reads as what was expected (works under python -O too)."""
    if not condition:
        raise AssertionError(sentence)
