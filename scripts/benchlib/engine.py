"""engine.py: the machine's limit for this work: bench/engine_bench.cc, SQLite alone, as the stages use it.

    measurements = run_engine(args, run_dir, seconds)   # five dicts: sync, txns_per_request, claim_with_next_commit, requests_per_second, ...
"""
import json
import os
import subprocess
import sys


def run_engine(args, run_dir, seconds):
    out = subprocess.run([os.path.join(args.build, "bench", "engine_bench"), "--dir", run_dir,
                          "--seconds", str(seconds)], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("engine_bench failed: " + out.stderr.strip())
    if out.stderr.strip():
        print(out.stderr.strip(), file=sys.stderr)   # its warning about a tmpfs
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
