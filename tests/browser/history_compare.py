"""history_compare.py: do two grader histories (JSON Lines, the grammar at the top of grader/record/history.cc) tell
the same story? Used by playground_test.py: the playground's tour of a scenario must make the requests that
`grader demo NAME --history FILE` makes, and get the same answers.

    a = history_compare.load(path_or_text)
    flawed = history_compare.telling(a, "lost-response", "flawed")   # grader demo tells a story twice:
                                                                      # its checks are NAME/flawed, NAME/fixing
    problem = history_compare.difference(playground_events, demo_events)   # None, or a sentence and both events

What is compared, after normalising (normal_form):
  - kept: the sequence of event types; each op's place in it (ops are renumbered by first appearance, so a
    history that starts at op 7 still compares); keys; request methods, targets, bodies and the lab's own
    request headers (Idempotency-Key, Content-Type, Lab-*); statuses; response bodies; the response headers
    that carry meaning (Content-Type, Idempotent-Replayed, Location, Retry-After); observe counts; fault kinds
  - dropped: "t" (timing), "check" and "intent" (names the two tools may choose differently), Authorization
    (tokens), Host (ports), Date, Content-Length and other transport headers, error texts (they carry
    timings), fault details (pids, ports), and JSON members of response bodies whose name ends in "_at"
    (the lab clock runs from the wall clock)
  - "ended" events are compared as a set (op -> status), not in sequence: the observer sees a lost request
    end while the story goes on, so its place among the next step's events is a race.
"""
import json

KEPT_REQUEST_HEADERS = {"idempotency-key", "content-type"}   # and every "lab-*" header
KEPT_RESPONSE_HEADERS = {"content-type", "idempotent-replayed", "location", "retry-after"}
TIMESTAMP_SUFFIX = "_at"


def load(path_or_text):
    """The events of a JSON Lines history, from a file path or from the text itself."""
    text = path_or_text
    if "\n" not in path_or_text and not path_or_text.lstrip().startswith("{"):
        with open(path_or_text, encoding="utf-8") as f:
            text = f.read()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def telling(events, scenario, role):
    """The events of one telling of `grader demo NAME --history FILE`: those whose check is "NAME/ROLE"
    ("NAME/only" for a story told once, on the last stage). None if the history names no such telling."""
    names = {f"{scenario}/{role}"} | ({f"{scenario}/only"} if role == "flawed" else set())
    chosen = [e for e in events if e.get("check") in names]
    return chosen or None


def tellings(events):
    """Splits a history into its tellings, in order: by "check" when the tellings name themselves apart,
    else where op numbers start again at a lower number. One telling: [events]."""
    checks = []
    for e in events:
        if e.get("check") not in checks:
            checks.append(e.get("check"))
    if len(checks) > 1:
        return [[e for e in events if e.get("check") == c] for c in checks]
    parts, highest = [[]], 0
    for e in events:
        if e.get("type") == "invoke" and highest and e["op"] <= highest:
            parts.append([])
            highest = 0
        if e.get("type") == "invoke":
            highest = max(highest, e["op"])
        parts[-1].append(e)
    return parts


def _headers(pairs, kept):
    return sorted((name.lower(), value) for name, value in pairs
                  if name.lower() in kept or name.lower().startswith("lab-"))


def _without_timestamps(value):
    if isinstance(value, dict):
        return {k: _without_timestamps(v) for k, v in value.items() if not k.endswith(TIMESTAMP_SUFFIX)}
    if isinstance(value, list):
        return [_without_timestamps(v) for v in value]
    return value


def _body(text):
    try:
        return json.dumps(_without_timestamps(json.loads(text)), sort_keys=True)
    except (ValueError, TypeError):
        return text


def normal_form(events):
    """(sequence, ended): the events as comparable tuples, and the "ended" ones as {op: status}."""
    ops = {}

    def op_of(e):
        return ops.setdefault(e["op"], len(ops) + 1)

    sequence, ended = [], {}
    for e in events:
        kind = e["type"]
        if kind == "invoke":
            r = e["request"]
            sequence.append(("invoke", op_of(e), e.get("key"), r["method"], r["target"],
                             tuple(_headers(r.get("headers", []), KEPT_REQUEST_HEADERS)), _body(r.get("body", ""))))
        elif kind in ("ok", "fail", "unknown"):
            r = e.get("response") or {}
            sequence.append((kind, op_of(e), e.get("key"), e.get("status"),
                             tuple(_headers(r.get("headers", []), KEPT_RESPONSE_HEADERS)), _body(r.get("body", ""))))
        elif kind == "ended":
            ended[op_of(e)] = e.get("status")
        elif kind == "observe":
            sequence.append(("observe", e.get("ledger_entries")))
        elif kind == "fault":
            sequence.append(("fault", e.get("fault")))
        else:
            sequence.append((kind,))
    return sequence, ended


def difference(actual, expected):
    """None when the two histories tell the same story; else a sentence naming the first difference."""
    a_seq, a_ended = normal_form(actual)
    e_seq, e_ended = normal_form(expected)
    for i, (a, e) in enumerate(zip(a_seq, e_seq)):
        if a != e:
            return f"event {i + 1} differs:\n       playground: {a}\n       grader demo: {e}"
    if len(a_seq) != len(e_seq):
        extra = a_seq[len(e_seq):] or e_seq[len(a_seq):]
        who = "the playground" if len(a_seq) > len(e_seq) else "grader demo"
        return f"{who} has {abs(len(a_seq) - len(e_seq))} more events, first: {extra[0]}"
    if a_ended != e_ended:
        return f"ended events differ (op -> status): playground {a_ended}, grader demo {e_ended}"
    return None


def distinct_requests(events):
    """The set of distinct requests invoked (op numbers and order left out): for stories whose shape is a
    race (how many bursts, which copy wins), the one thing both tellings must share."""
    return {s[2:] for s in normal_form(events)[0] if s[0] == "invoke"}
