#!/usr/bin/env python3
"""validate_history.py: checks a grader history (--history FILE) against the grammar at the top of
grader/record/history.cc: JSON Lines; invoke / ok / fail / unknown / observe / fault / ended events; every
completion pairs with an earlier invoke of the same op, check and intent, and every invoke is completed
once; an "ended" follows the "unknown" completion of its op, once.
Usage: validate_history.py history.jsonl
"""
import json
import sys


def fail(line_number, message):
    print(f"history line {line_number}: {message}", file=sys.stderr)
    sys.exit(1)


def require(event, n, field, kinds):
    if field not in event or not isinstance(event[field], kinds):
        fail(n, f'"{field}" is missing or of the wrong type')


def main(path):
    invoked, completed, unknown, ended = {}, set(), set(), set()
    count = 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            event = json.loads(line)
            count += 1
            require(event, n, "type", str)
            require(event, n, "t", (int, float))
            require(event, n, "check", str)
            require(event, n, "intent", str)
            kind = event["type"]
            if kind == "invoke":
                require(event, n, "op", int)
                require(event, n, "request", dict)
                for field, kinds in (("method", str), ("target", str), ("headers", list), ("body", str)):
                    require(event["request"], n, field, kinds)
                if not (event["key"] is None or isinstance(event["key"], str)):
                    fail(n, '"key" is neither a string nor null')
                if event["op"] in invoked:
                    fail(n, f"op {event['op']} invoked twice")
                invoked[event["op"]] = (event["check"], event["intent"])
            elif kind in ("ok", "fail", "unknown"):
                require(event, n, "op", int)
                require(event, n, "error", str)
                op = event["op"]
                if invoked.get(op) != (event["check"], event["intent"]):
                    fail(n, f"completion of op {op} does not match an earlier invoke")
                if op in completed:
                    fail(n, f"op {op} completed twice")
                completed.add(op)
                status = event["status"]
                if kind == "unknown":
                    unknown.add(op)
                    if status is not None or event["response"] is not None:
                        fail(n, "an unknown completion carries a response")
                else:
                    require(event, n, "response", dict)
                    if not isinstance(status, int) or (kind == "ok") != (200 <= status < 300):
                        fail(n, f'"{kind}" with status {status}')
            elif kind == "ended":
                require(event, n, "op", int)
                require(event, n, "error", str)
                op = event["op"]
                if op not in unknown or invoked.get(op) != (event["check"], event["intent"]):
                    fail(n, f"ended op {op} was not completed unknown earlier")
                if op in ended:
                    fail(n, f"op {op} ended twice")
                ended.add(op)
                if not (event["status"] is None or isinstance(event["status"], int)):
                    fail(n, '"status" is neither an integer nor null')
            elif kind == "observe":
                require(event, n, "ledger_entries", int)
            elif kind == "fault":
                if event.get("fault") not in ("lab-crash", "sigkill", "restart", "clock", "wait"):
                    fail(n, f"unknown fault {event.get('fault')!r}")
                require(event, n, "detail", str)
            else:
                fail(n, f"unknown event type {kind!r}")
    missing = set(invoked) - completed
    if missing:
        fail(count, f"ops invoked but never completed: {sorted(missing)[:10]}")
    if not invoked:
        fail(count, "no invoke events")
    print(f"history: ok ({count} events, {len(invoked)} attempts)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: validate_history.py history.jsonl", file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
