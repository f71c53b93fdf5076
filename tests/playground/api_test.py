#!/usr/bin/env python3
"""The playground's JSON API on real stage servers, without a browser (docs/teach/the-playground.md "The playground").

usage: api_test.py PLAYGROUND_BINARY BIN_DIR [GRADER_BINARY]

Starts the playground on a free port and checks, over real HTTP:
  - refusals: a foreign Host (DNS rebinding), a POST that is not application/json (a cross-site form), bad
    input (400), an unknown scenario (404), an action without its session (409); all problem+json;
  - free mode on stage 1 and stage 5: a retry with the same key moves money twice on stage 1, once on
    stage 5 (read from the server's own SQLite file through the state's ledger);
  - a guided tour (lost-response on stage 1) held at each step until "next", a repeat held for a
    prediction, the story's verdict at the end; and, with GRADER_BINARY, that its exported history is
    `grader demo lost-response --history`'s flawed telling, request for request.
"""
import collections
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


def start(playground, bin_dir):
    proc = subprocess.Popen([playground, "--port", "0", "--bin-dir", bin_dir], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 15
    while time.time() < deadline:
        line = proc.stdout.readline()
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    sys.exit("the playground did not print its 'listening on' line")


def call(base, method, path, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    h = {"Content-Type": "application/json"} if method == "POST" else {}
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=data if method == "POST" else None, method=method, headers=h)
    if method == "POST" and data is None:
        req.data = b"{}"
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def state(base):
    return json.loads(call(base, "GET", "/api/state")[2])


def wait_for(base, what, predicate, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        st = state(base)
        if predicate(st):
            return st
        time.sleep(0.1)
    sys.exit(f"timed out waiting for {what}; last state: {json.dumps(st['session'])}")


failures = []


def expect(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def expect_problem(got, status, what):
    code, ctype, body = got
    expect(code == status and ctype.startswith("application/problem+json") and "detail" in json.loads(body),
           f"{what}: {status} problem+json (got {code} {ctype} {body[:120]})")


def free_mode_retry(base, stand, expected_entries):
    call(base, "POST", "/api/free", {"stand": stand})
    wait_for(base, f"{stand} ready", lambda s: s["session"]["waiting"] == "ready")
    for _ in range(2):
        call(base, "POST", "/api/send", {"client": "alice", "key": "rent-1", "amount": 1500})
    st = wait_for(base, "both sends answered", lambda s: s["session"]["step"] == 2 and s["session"]["waiting"] == "ready")
    entries = len(st["ledger"]["rows"])
    expect(entries == expected_entries, f"free mode on {stand}: a retry with the same key leaves {expected_entries} "
                                        f"ledger entr{'y' if expected_entries == 1 else 'ies'} (got {entries})")
    return st


def normalised(lines, check):
    out = []
    for line in lines:
        e = json.loads(line)
        if e.get("check") != check:
            continue
        req = e.get("request") or {}
        out.append((e["type"], e.get("key"), req.get("method"), req.get("target"), req.get("body"), e.get("status")))
    return out


def history_check(exported, grader, bin_dir):
    if not grader:
        return
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
        subprocess.run([grader, "demo", "lost-response", "--bin-dir", bin_dir, "--history", f.name],
                       stdout=subprocess.DEVNULL, check=True, env={"NO_COLOR": "1"})
        theirs = normalised(open(f.name).read().splitlines(), "lost-response/flawed")
    ours = normalised(exported, "lost-response/flawed")
    # A lost request's "ended" event is compared as one of a set, not by its place: the observer sees it end
    # while the story goes on, so where it falls among the next step's events is a race (as history_compare.py
    # compares it; CI at load 16-28 once saw it before the next invoke in one history, after it in the other).
    def in_order(events):
        return [e for e in events if e[0] != "ended"]
    def ended(events):
        return collections.Counter(e for e in events if e[0] == "ended")
    expect(in_order(ours) == in_order(theirs) and ended(ours) == ended(theirs) and len(ours) > 0,
           f"the exported history is grader demo's, event for event ({len(ours)} vs {len(theirs)} events)")
    ours, theirs = in_order(ours), in_order(theirs)
    for n, (mine, demo) in enumerate(zip(ours, theirs)):
        if mine != demo:
            print(f"      first difference, event {n + 1}:\n        playground: {mine}\n        grader demo: {demo}")
            break


# What each story's flaw looks like on the attempts (playground/violations.cc), and that its fixing stage
# shows none. step 50: told to its end without stopping.
STORY_VIOLATIONS = {
    "changed-amount": "fingerprint-ignored",
    "crash-completed-first": "lost-write",
    "in-flight-done": "in-flight-lie",
    "recomputed-response": "replay-mismatch",
    "global-key-leak": "scope-leak",
}


def violations_of_each_story(base):
    for scenario, anomaly in STORY_VIOLATIONS.items():
        for role in ("flawed", "fixing"):
            call(base, "POST", "/api/tour", {"scenario": scenario, "role": role, "seed": 1, "step": 50})
            st = wait_for(base, f"{scenario} ({role}) told", lambda s: s["session"]["waiting"] == "finished", 60)
            found = sorted({a["anomaly"] for a in st["anomalies"]})
            if role == "flawed":
                expect(anomaly in found, f"{scenario} on its flawed stage flags {anomaly} (flags {found})")
            else:
                expect(found == [], f"{scenario} on its fixing stage flags nothing (flags {found})")


def main():
    playground, bin_dir = sys.argv[1], sys.argv[2]
    grader = sys.argv[3] if len(sys.argv) > 3 else None
    proc, base = start(playground, bin_dir)
    try:
        expect(call(base, "GET", "/")[0] == 200 and "<html" in call(base, "GET", "/")[2].lower(), "GET / serves the page")
        expect(call(base, "GET", "/playground.js")[1].startswith("text/javascript"), "the script is served as JavaScript")
        expect_problem(call(base, "GET", "/api/stands", headers={"Host": "evil.example:80"}), 400, "a foreign Host")
        expect_problem(call(base, "POST", "/api/free", None, {"Content-Type": "text/plain"}), 400,
                       "a POST as text/plain (what a cross-site form can send)")
        expect_problem(call(base, "POST", "/api/tour", {"scenario": "no-such"}), 404, "an unknown scenario")
        expect_problem(call(base, "POST", "/api/next"), 409, "next without a tour")
        expect_problem(call(base, "GET", "/api/state?since=x"), 400, "a state version that is not a number")
        stands = json.loads(call(base, "GET", "/api/stands")[2])
        expect(any(s["binary"] == "stage1_naive" for s in stands), "the stands list stage 1")

        st = free_mode_retry(base, "stage1_naive", 2)
        expect(sorted(a["anomaly"] for a in st["anomalies"]) == ["double-apply", "double-apply"],
               "free mode on stage 1: both sends of the key are flagged double-apply")
        expect_problem(call(base, "POST", "/api/send", {"key": "a b", "amount": 1}), 400, "a key with a space")
        expect_problem(call(base, "POST", "/api/send", {"key": "k", "amount": "lots"}), 400, "an amount that is text")
        expect_problem(call(base, "POST", "/api/send", {"key": "k", "amount": 1500.5}), 400, "an amount with a fraction")
        expect_problem(call(base, "POST", "/api/tour", {"scenario": "lost-response", "step": 1e300}), 400,
                       "a step no int holds (converting it would be undefined behaviour)")
        expect_problem(call(base, "POST", "/api/free", {"stand": "stage1_naive", "seed": 2 ** 40}), 400,
                       "a seed beyond int")
        if any(s["binary"] == "stage5_replay" for s in stands):
            st = free_mode_retry(base, "stage5_replay", 1)
            expect("key" in st["keys"]["columns"] and len(st["keys"]["rows"]) == 1,
                   "stage 5's key table, read from its SQLite file, has the key's one row")
            expect(st["anomalies"] == [], f"stage 5's replay is flagged nowhere (got {st['anomalies']})")

        call(base, "POST", "/api/tour", {"scenario": "lost-response", "role": "flawed", "seed": 1, "step": 0})
        st = wait_for(base, "the tour waits before step 1", lambda s: s["session"]["waiting"] == "step")
        expect(st["session"]["step"] == 0 and not st["history"], "a tour at step 0 has sent nothing")
        call(base, "POST", "/api/next")
        st = wait_for(base, "step 1 told", lambda s: s["session"]["step"] == 1 and s["session"]["waiting"] == "step")
        expect(any(e["type"] == "unknown" for e in st["history"]), "step 1: the first attempt's answer is lost (unknown)")
        call(base, "POST", "/api/next")
        st = wait_for(base, "the repeat held for a prediction", lambda s: s["session"]["waiting"] == "prediction")
        expect(st["prediction"]["op_key"] == '"rent-2026-11"' and st["prediction"]["previous"] == [{"op": 1, "status": None}],
               "the prediction names the repeated key and what its first attempt got (no answer)")
        expect_problem(call(base, "POST", "/api/predict", {"choice": "maybe"}), 400, "a prediction that is no choice")
        call(base, "POST", "/api/predict", {"choice": "replay"})
        st = wait_for(base, "the story's end", lambda s: s["session"]["waiting"] == "finished")
        expect("FLAW SHOWN" in (st["session"]["verdict"] or ""), f"the verdict: {st['session']['verdict']}")
        expect(len(st["ledger"]["rows"]) == 2, "stage 1 moved the rent twice")
        flagged = sorted((a["op"], a["anomaly"], a["fixed_by"]) for a in st["anomalies"])
        expect(flagged == [(1, "double-apply", 2), (2, "double-apply", 2)],
               f"both attempts are flagged double-apply, fixed by stage 2 (got {flagged})")
        expect('id="first-violation"' in st["timeline_svg"] and st["timeline_svg"].count('class="attempt') == 2,
               "the timeline draws the two attempts and marks the first violation")
        exported = call(base, "GET", "/api/history.jsonl")[2].splitlines()
        history_check(exported, grader, bin_dir)
        violations_of_each_story(base)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            failures.append("the playground did not stop on SIGTERM within 10 s")
    expect(proc.returncode == 0, f"the playground exits 0 on SIGTERM (got {proc.returncode})")
    if failures:
        sys.exit(f"{len(failures)} failed")


if __name__ == "__main__":
    main()
