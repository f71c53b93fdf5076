#!/usr/bin/env python3
"""bench_harness_test.py: `make bench`'s instruments work, in a few seconds. Never a figure's size: only that
each measurement runs, counts more than nothing, and sees no status, socket error or ledger row it should not.
(scripts/bench.py; docs/reference/plumbing.md "Performance".)

    bench_harness_test.py BUILD STAGE     # STAGE: the stage binary to load, e.g. stage6_scope_ttl

Exit 77 (ctest's SKIP_RETURN_CODE) when wrk is not installed: `make bench` installs it, `make test` does not.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import bench  # noqa: E402  (scripts/bench.py, and through it scripts/benchlib/)

SKIP = 77


def main():
    build, stage = os.path.abspath(sys.argv[1]), sys.argv[2]
    failures = []
    with tempfile.TemporaryDirectory(dir=build) as run_dir:
        args = type("Args", (), {"build": build, "seconds": 1})()

        # engine_bench measures five shapes, each at more than nothing
        engine = bench.run_engine(args, run_dir, 0.1)
        if len(engine) != 5 or any(e["requests_per_second"] <= 0 for e in engine):
            failures.append(f"engine_bench: {engine}")

        if shutil.which("wrk") is None:
            print("wrk is not installed (scripts/ensure-deps.sh bench): the HTTP rows are skipped")
            return SKIP if not failures else 1

        # the HTTP ceiling, and a stage whose every 201 must match a ledger row (duplicates: 409s expected)
        has_sync = bench.has_sync_option(build, stage)   # a starter copy has stage 1 only
        for i, spec in enumerate([("trivial", None, 16, "new", 0), (stage, "normal", 16, "new", 0),
                                  (stage, "normal", 16, "duplicates", 0)]):
            row = bench.measure_row(args, run_dir, i, spec, has_sync)
            if row["requests"] <= 0 or row["problems"]:
                failures.append(f"{bench.row_name(spec[0], spec[3], spec[4])}: {row['requests']} requests, "
                                f"{row['problems']}")
            else:
                print(f"ok: {bench.row_name(spec[0], spec[3], spec[4])}: {row['requests_per_second']:.0f} req/s, "
                      f"statuses {row['statuses']}, ledger rows {row['ledger_rows']}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
