#!/usr/bin/env python3
r"""rekeying_client.py: the common wrong pattern, kept as a lesson: a key per CALL, not per intent. docs/learn/the-clients-side.md "The client's side".

    python3 examples/clients/rekeying_client.py --url http://127.0.0.1:8080 --token tok_... \
        --intents 5 --from 1 --to 2 --amount 100

Two layers, as in many applications:
  - an SDK-like call, sdk_create_transfer(), that adds a new random key to each call and keeps it across
    that call's own retries (SDK_MAX_RETRIES of them), then raises; as a generated SDK does.
  - the application's loop, which treats that error as "it failed, try again" and calls again. The SDK
    cannot know that the second call means the same transfer, so it makes a new key, and when the first
    call's transfer was only slow (409: still running) the money moves twice.

Nothing else differs from right_client.py: both share examples/clients/transfer_http.py, the same bodies and
the same timeouts. Prints one line per intent and a summary; --verbose adds one line per send on stderr.
"""
import argparse
import os
import random
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transfer_http import (NoAnswer, add_intent_arguments, encoded, parse_command_line,   # noqa: E402
                           retry_after_seconds, send_transfer)

# ---- Tuning: a generated SDK's defaults (OpenAI's Stainless-generated Python SDK: 2, 0.5 s, 8 s) ------------
SDK_MAX_RETRIES = 2      # retries per call, after the first send
SDK_BASE_DELAY_S = 0.5   # the first retry's wait, doubled per retry, with jitter
SDK_MAX_DELAY_S = 8.0
RETRYABLE_STATUSES = {408, 409, 429, 500, 502, 503, 504}
APP_CALLS = 3            # the application's own "try again": each call is a new key


class SdkError(Exception):
    def __init__(self, what, retryable):
        super().__init__(what)
        self.retryable = retryable


def sdk_create_transfer(args, name, body_bytes, faults, sends, log):
    """One SDK call: POST /transfers under a key made for THIS CALL, retried SDK_MAX_RETRIES times.
    `sends` counts this intent's sends across calls (a list of one int, for the test hook's numbering)."""
    key = f"sdk-retry-{uuid.uuid4()}"   # the lesson: made per call, so the next call is another request
    for retry in range(SDK_MAX_RETRIES + 1):
        sends[0] += 1
        try:
            answer = send_transfer(args.url, args.token, key, faults.body_for(name, sends[0], body_bytes),
                                   args.timeout, faults.headers_for(name, sends[0]))
        except NoAnswer as error:
            log(f"{name} send {sends[0]} (key {key}): no answer ({error})")
            failure, wait_s, retryable = SdkError(f"no answer ({error})", True), None, True
        else:
            log(f"{name} send {sends[0]} (key {key}): {answer.status} {answer.problem_type()}")
            if answer.status == 201:
                return answer
            retryable = answer.status in RETRYABLE_STATUSES
            failure = SdkError(f"{answer.status} {answer.problem_type()}", retryable)
            wait_s = retry_after_seconds(answer)
        if not retryable or retry == SDK_MAX_RETRIES:
            raise failure   # the call's budget is spent: the key dies with the call
        ceiling = min(SDK_MAX_DELAY_S, SDK_BASE_DELAY_S * 2 ** retry)
        time.sleep(wait_s if wait_s is not None else random.uniform(ceiling / 2, ceiling))
    raise AssertionError("unreachable")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_intent_arguments(parser)
    args, faults, intents, log = parse_command_line(parser)

    counts, total_sends = {}, 0
    for intent in intents:
        sends, calls, state = [0], 0, "unknown"
        while calls < APP_CALLS:
            calls += 1
            try:
                answer = sdk_create_transfer(args, intent.name, encoded(intent.body), faults, sends, log)
                state, text = "done", f"transfer {answer.body['id']}"
                break
            except SdkError as error:
                # "It failed, try again": the application's retry, under a new key (the bug).
                state, text = ("unknown" if error.retryable else "refused"), str(error)
                if not error.retryable:
                    break
        counts[state] = counts.get(state, 0) + 1
        total_sends += sends[0]
        print(f"{intent.name}  {state}  {text}, {sends[0]} sends in {calls} calls ({calls} keys)", flush=True)
    summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("done", "refused", "unknown"))
    print(f"rekeying client: {len(intents)} intents: {summary}; {total_sends} sends")
    return 1 if counts.get("unknown") else 0


if __name__ == "__main__":
    sys.exit(main())
