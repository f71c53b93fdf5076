"""grader_runs.py: the grader's own work, timed: the day replayed on stage 6, and the full matrix.

    day = run_day(args, run_dir, intents)    # intents=None: the default day (grader day generate)
    matrix = run_matrix(args, run_dir)       # grader matrix --seed 1: wall seconds, exit status
"""
import json
import os
import subprocess
import time

from benchlib.processes import RSS_SAMPLE_EVERY_S, descendants, process_name, status_kib

DAY_SPEED_MAX = 1_000_000_000        # grader day replay's largest --speed: intents start as fast as sent


def run_day(args, run_dir, intents, show_progress=False):
    """grader day generate (intents=None: the default day), then its replay on stage 6 at the largest speed.
    The grader's peak memory comes from wait4's rusage; the server's (and after a Lab-Crash, its successor's)
    from /proc while it runs. show_progress: the grader's progress goes to our stderr (make bench-day)."""
    grader = os.path.join(args.build, "grader", "grader")
    log = os.path.join(run_dir, f"day-{intents or 'default'}.jsonl")
    generate = [grader, "day", "generate", "--out", log] + (["--intents", str(intents)] if intents else [])
    out = subprocess.run(generate, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("grader day generate failed: " + out.stderr.strip())
    figures = log.replace(".jsonl", ".figures.json")
    replay_log_path = log.replace(".jsonl", ".replay.log")
    command = [grader, "day", "replay", log, "--stage", "6", "--bin-dir", os.path.join(args.build, "stages"),
               "--speed", str(DAY_SPEED_MAX), "--json", figures]
    t0 = time.monotonic()
    server_peak = 0
    with open(replay_log_path, "w") as replay_log:
        proc = subprocess.Popen(command, stdout=replay_log, stderr=None if show_progress else subprocess.STDOUT)
        while True:
            pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            for kid in descendants(proc.pid):
                if process_name(kid).startswith("stage"):
                    server_peak = max(server_peak, status_kib(kid, "VmHWM"))
            time.sleep(RSS_SAMPLE_EVERY_S)
    proc.returncode = os.waitstatus_to_exitcode(wait_status)   # reaped by wait4: Popen must not wait again
    wall = time.monotonic() - t0
    if not os.path.exists(figures):
        raise RuntimeError(f"grader day replay failed (exit {proc.returncode}); see {replay_log_path}")
    with open(figures) as f:
        j = json.load(f)
    s = (j.get("servers") or [{}])[0]
    return {"default_day": intents is None, "intents": j.get("intents"), "sends": s.get("sends"), "replay_seconds": s.get("seconds"),
            "sends_per_second": s.get("sends_per_second"), "restarts": s.get("restarts"), "clean": s.get("clean"),
            "wall_seconds": round(wall, 2), "exit_status": proc.returncode,
            "grader_peak_rss_kib": usage.ru_maxrss,   # KiB on Linux
            "server_peak_rss_kib": server_peak, "error": s.get("error")}


def run_matrix(args, run_dir):
    grader = os.path.join(args.build, "grader", "grader")
    t0 = time.monotonic()
    with open(os.path.join(run_dir, "matrix.log"), "w") as log:
        status = subprocess.run([grader, "matrix", "--bin-dir", os.path.join(args.build, "stages"), "--seed", "1"],
                                stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1")).returncode
    return {"exit_status": status, "wall_seconds": round(time.monotonic() - t0, 2)}
