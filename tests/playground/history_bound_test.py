#!/usr/bin/env python3
"""A free-mode session's history is bounded (docs/teach/the-playground.md "The playground", limits), over the real HTTP API.

usage: history_bound_test.py PLAYGROUND_BINARY BIN_DIR

Starts the playground on a free port, free mode on stage 1, and sends bursts of 16 copies until the session
has made more than twice as many events as it keeps (playground/session.h:kSessionEventsKept, read from
the source, its one definition). Then checks:
  - the state's history holds at most that many events, the newest, and history_dropped counts the rest:
    kept + dropped is every event made (two per copy: its invoke and its answer);
  - the state and the export stay the same size from one round of sends to the next twice as long, and the
    playground's memory (VmRSS) stays under kMaxRssMiB;
  - the findings still stand on the kept attempts: each 16-copy burst on stage 1 moved the money 16 times
    (double-apply), and no attempt is called a lost write because its ledger entry is older than the page
    shows;
  - the page has the line that says how many older events are not shown.
"""
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))
from api_test import call, expect, failures, start, state, wait_for  # noqa: E402
from sanitizer_bounds import memory_bound_mib, time_bound_s  # noqa: E402

kCopies = 16  # the most one send may ask for (playground/session.cc:invalid_order)
# Measured with the bound: 30-45 MiB after 2,000 sends of 16 copies; without it, 590-740 MiB after 400.
# Scaled in a sanitized build by what the sanitizer costs (tests/sanitizer_bounds.py; 505 MiB under ASan).
kMaxRssMiB = 128
# The state at the bound is about 2 MB; "the same size" allows the bodies' numbers to grow a digit.
kGrowthAllowed = 1.25


def events_kept():
    header = pathlib.Path(__file__).resolve().parents[2] / "playground" / "session.h"
    m = re.search(r"kSessionEventsKept = ([\d']+);", header.read_text())
    if not m:
        sys.exit(f"no kSessionEventsKept in {header}")
    return int(m.group(1).replace("'", ""))


def rss_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def send_bursts(base, first, count):
    for i in range(first, first + count):
        status, _, body = call(base, "POST", "/api/send", {"client": "alice", "key": f"burst-{i}", "amount": 1,
                                                            "copies": kCopies})
        if status != 202:
            sys.exit(f"send {i}: {status} {body}")
    return wait_for(base, f"{first + count} sends answered",
                    lambda s: s["session"]["step"] == first + count and s["session"]["waiting"] == "ready",
                    timeout=time_bound_s(240))


def main():
    playground, bin_dir = sys.argv[1], sys.argv[2]
    kept = events_kept()
    sends = 2 * kept // (2 * kCopies) + 1  # one round: more events than are kept
    proc, base = start(playground, bin_dir)
    try:
        call(base, "POST", "/api/free", {"stand": "stage1_naive"})
        wait_for(base, "free mode ready", lambda s: s["session"]["waiting"] == "ready")

        send_bursts(base, 0, sends)
        first_size = len(call(base, "GET", "/api/state")[2])
        send_bursts(base, sends, sends)
        raw = call(base, "GET", "/api/state")[2]
        st = json.loads(raw)
        made = 2 * sends * 2 * kCopies
        history = st["history"]
        print(f"{2 * sends} sends of {kCopies}: {made} events, {len(history)} kept, {st.get('history_dropped')} dropped, "
              f"state {first_size} then {len(raw)} bytes, VmRSS {rss_mib(proc.pid)} MiB")

        expect(len(history) <= kept, f"the state holds at most {kept} events (holds {len(history)})")
        expect(st.get("history_dropped", 0) + len(history) == made,
               f"history_dropped ({st.get('history_dropped')}) counts every event not kept ({made} made)")
        ops = [e["op"] for e in history if e["type"] == "invoke"]
        expect(ops and ops[-1] == 2 * sends * kCopies and ops[0] > 1, "the kept events are the newest")
        expect(len(raw) <= kGrowthAllowed * first_size,
               f"the state stays the same size ({first_size} bytes, then {len(raw)} after twice the sends)")
        exported = call(base, "GET", "/api/history.jsonl")[2].splitlines()
        expect(len(exported) == len(history), f"the export has the kept events ({len(exported)})")
        bound_mib, bound_said = memory_bound_mib(kMaxRssMiB)
        expect(rss_mib(proc.pid) <= bound_mib, f"the playground's VmRSS stays under {bound_said} "
                                               f"({rss_mib(proc.pid)} MiB)")

        anomalies = [a["anomaly"] for a in st["anomalies"]]
        expect("double-apply" in anomalies, "the kept bursts are flagged double-apply (16 debits for one request)")
        expect("lost-write" not in anomalies,
               f"no kept attempt is called a lost write ({anomalies.count('lost-write')} are)")

        page = call(base, "GET", "/")[2]
        script = call(base, "GET", "/playground.js")[2]
        expect('id="history-dropped"' in page and "state.history_dropped" in script,
               "the page has the line saying how many older events are not shown")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    if failures:
        sys.exit(f"{len(failures)} failed: " + "; ".join(failures))


if __name__ == "__main__":
    main()
