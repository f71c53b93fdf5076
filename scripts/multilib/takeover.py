"""takeover.py: the two ways an instance can stop holding a key it claimed, played across instances (docs/learn/stage-4-two-phase.md
"Stage 4: in_progress, then completed", the lease; "Stage 6", the fence). Instances A, B, C share a database.

crash   A claims key K and dies (SIGKILL) before the money moves. Its claim stays in the table.
        K on B, within the lease: 409 (A might still be alive: taking over now could move the money twice).
        The lab clock passes the lease (on C): K on C takes the claim over, 201. K on B: the same bytes,
        replayed. One ledger entry; the balances moved once. A restarts on the same database.
pause   A claims K2 and stops (SIGSTOP) without dying: to the others it looks exactly like a crash.
        The clock passes the lease (on B): K2 on B takes over, 201. A resumes (SIGCONT) and tries to complete:
        the fence moved, so A rolls back and answers 409, never 201. K2 on A: B's bytes, replayed.
        One ledger entry; the balances moved once.

    result = check_crash(fleet, bank)   # {"check", "ok", "figures", "problems", "seconds"}
"""
import secrets
import threading
import time

from multilib.check import Check, plural

A, B, C = 0, 1, 2
OPENING = 10_000              # cents in the paying account
AMOUNT = 1_500                # cents per transfer
CRASH_DELAY_MS = 3_000        # A sleeps this long after its claim: long enough to be killed in the middle
PAUSE_DELAY_MS = 1_500        # ... and to be paused in the middle; shorter, so A resumes into its completion
CLOCK_PAST_LEASE_MS = 1_000   # how far past the lease the lab clock is moved: any step past it would do
CLAIM_TIMEOUT_S = 5           # the claim must be in the table by then


def in_background(function, *args):
    """Runs function(*args) in a thread; .join() returns its result."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", function(*args)), daemon=True)
    thread.start()

    class Handle:
        def join(self, timeout=None):
            thread.join(timeout)
            return box.get("result")
    return Handle()


def wait_until_claimed(fleet, customer):
    """Until the customer's key is in_progress in the shared table: the claim has committed, the money not."""
    deadline = time.monotonic() + CLAIM_TIMEOUT_S
    query = f"SELECT count(*) FROM idempotency_keys WHERE client_id = {customer.client_id} AND state = 'in_progress'"
    while fleet.sql_value(query) != "1":
        if time.monotonic() > deadline:
            raise RuntimeError(f"the key was not claimed within {CLAIM_TIMEOUT_S} s")
        time.sleep(0.02)


def expect_moved_once(check, fleet, bank, customer, url):
    """One ledger entry from the paying account, and balances that moved exactly once."""
    entries = int(fleet.sql_value(f"SELECT count(*) FROM ledger WHERE from_account = {customer.accounts[0]}"))
    check.expect(entries == 1, f"{entries} ledger entries for one intent (expected 1)"
                 + (": THE MONEY MOVED TWICE" if entries > 1 else ""))
    balances = [bank.balance(url, customer, a) for a in customer.accounts]
    check.expect(balances == [OPENING - AMOUNT, AMOUNT],
                 f"balances {balances}, expected {[OPENING - AMOUNT, AMOUNT]} (moved once)")
    return entries


def check_crash(fleet, bank):
    check = Check("crash: A killed mid-request")
    urls, lease_ms = fleet.urls(), fleet.lease_s * 1000
    alice = bank.open_customer(urls[C], "multi-crash", [OPENING, 0])
    key = "multi-crash-" + secrets.token_hex(4)

    first = in_background(bank.transfer, urls[A], alice, key, AMOUNT, "multi crash", {"Lab-Delay-Ms": str(CRASH_DELAY_MS)})
    wait_until_claimed(fleet, alice)
    fleet.kill(A)
    answer = first.join()
    check.expect(answer.status == 0, f"the killed instance answered {answer}")

    early = bank.transfer(urls[B], alice, key, AMOUNT, "multi crash")
    check.expect(early.status == 409, f"K on B within the lease: {early}, expected 409 (the claim still holds)")
    bank.advance_clock(urls[C], lease_ms + CLOCK_PAST_LEASE_MS)
    taken = bank.transfer(urls[C], alice, key, AMOUNT, "multi crash")
    check.expect(taken.status == 201 and not taken.replayed, f"K on C past the lease: {taken}, expected 201 (taken over)")
    again = bank.transfer(urls[B], alice, key, AMOUNT, "multi crash")
    check.expect(again.status == taken.status and again.replayed and again.body == taken.body,
                 f"K on B after the take-over: {again}, expected C's 201 replayed, the same bytes")
    entries = expect_moved_once(check, fleet, bank, alice, urls[B])

    fleet.restart(A)
    return check.result(f"A: {answer}; B: {early}; C: {taken}; B: {again}; "
                        f"{plural(entries, 'ledger entry', 'ledger entries')}; A restarted")


def check_pause(fleet, bank):
    check = Check("pause: A stopped past its lease")
    urls, lease_ms = fleet.urls(), fleet.lease_s * 1000
    bob = bank.open_customer(urls[C], "multi-pause", [OPENING, 0])
    key = "multi-pause-" + secrets.token_hex(4)

    first = in_background(bank.transfer, urls[A], bob, key, AMOUNT, "multi pause", {"Lab-Delay-Ms": str(PAUSE_DELAY_MS)})
    wait_until_claimed(fleet, bob)
    claimed_at = time.monotonic()
    fleet.pause(A)
    paused_at = time.monotonic()
    try:
        bank.advance_clock(urls[B], lease_ms + CLOCK_PAST_LEASE_MS)
        taken = bank.transfer(urls[B], bob, key, AMOUNT, "multi pause")
        check.expect(taken.status == 201 and not taken.replayed, f"K2 on B past the lease: {taken}, expected 201 (taken over)")
        # Stopped until its delay is over: A resumes straight into its completion, unaware of the lost time,
        # like a process back from a long GC pause or a frozen VM.
        time.sleep(max(0.0, claimed_at + PAUSE_DELAY_MS / 1000 - time.monotonic()))
    finally:
        fleet.resume(A)
    paused_s = time.monotonic() - paused_at

    fenced = first.join()
    # Whether A's 201 moved the money a second time is for the ledger to say (expect_moved_once, below): after
    # a take-over that failed, A's 201 is the only execution.
    check.expect(fenced.status == 409, f"A after SIGCONT answered {fenced}, expected 409 (fenced out)"
                 + (": it completed a claim it no longer held" if fenced.status == 201 and taken.status == 201 else ""))
    again = bank.transfer(urls[A], bob, key, AMOUNT, "multi pause")
    check.expect(again.status == taken.status and again.replayed and again.body == taken.body,
                 f"K2 on A after it resumed: {again}, expected B's 201 replayed, the same bytes")
    entries = expect_moved_once(check, fleet, bank, bob, urls[A])
    return check.result(f"B: {taken}; A (paused {paused_s:.1f} s): {fenced}; A: {again}; "
                        f"{plural(entries, 'ledger entry', 'ledger entries')}")
