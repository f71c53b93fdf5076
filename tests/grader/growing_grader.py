#!/usr/bin/env python3
"""growing_grader.py: a stand-in for the grader whose memory grows without end, to show that the containment
test's memory bound still fails such a program in every build, sanitized or not (issue #57).

usage: growing_grader.py [ANY ARGUMENTS]      (check_containment.py starts it as it would start the grader)

It grows in steps of GROW_STEP_MIB and never frees; so that the test ends, it stops at twice this build's
bound (tests/sanitizer_bounds.py) and exits 0 without a verdict. Standard library only.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sanitizer_bounds import memory_bound_mib  # noqa: E402
from check_containment import GRADER_PEAK_MIB  # noqa: E402

GROW_STEP_MIB = 32
GROW_EVERY_S = 0.02  # a few polls of check_containment.py (every 50 ms) see each step


def main():
    stop_mib = 2 * memory_bound_mib(GRADER_PEAK_MIB)[0]
    hoard = []
    while len(hoard) * GROW_STEP_MIB < stop_mib:
        hoard.append(bytearray(GROW_STEP_MIB << 20))  # bytearray(n) is zeroed, so its pages are touched
        time.sleep(GROW_EVERY_S)
    print(f"growing_grader: held {len(hoard) * GROW_STEP_MIB} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
