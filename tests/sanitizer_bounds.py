"""sanitizer_bounds.py: a memory bound, or a time bound, that means the same in a build under a sanitizer
(issue #57).

    from sanitizer_bounds import memory_bound_mib
    bound, said = memory_bound_mib(128)   # (128, "128 MiB") in a normal build; in build-asan
                                          # (691, "691 MiB: 128 MiB x 3.4 + 256 MiB under the address sanitizer ...")

A bound on a program's memory is about the program's own use. Under AddressSanitizer or ThreadSanitizer
the same process also holds the sanitizer's shadow memory (and ASan's quarantine of freed blocks), so the
normal bound would fail a program that is right. CMakeLists.txt says what each sanitizer costs and why (the
one place: next to LAB_SANITIZE); ctest hands it over in the environment (LAB_MEMORY_SCALE,
LAB_MEMORY_EXTRA_MIB, LAB_TIME_SCALE, LAB_SANITIZE). A test run by hand, outside ctest, gets none and keeps the normal bound.
A program whose memory grows without end still crosses the scaled bound; only the verdict's threshold moves.
Standard library only.
"""
import os


def memory_bound_mib(normal_mib):
    """The bound in MiB for this build, and the words that say how it was reached."""
    scale = float(os.environ.get("LAB_MEMORY_SCALE") or 1)
    extra = int(os.environ.get("LAB_MEMORY_EXTRA_MIB") or 0)
    sanitizer = os.environ.get("LAB_SANITIZE", "")
    if not sanitizer:
        return normal_mib, f"{normal_mib} MiB"
    bound = int(normal_mib * scale + extra)
    return bound, (f"{bound} MiB: {normal_mib} MiB x {scale:g}" + (f" + {extra} MiB" if extra else "") +
                   f" under the {sanitizer} sanitizer (CMakeLists.txt, LAB_SANITIZE)")


def time_bound_s(normal_s):
    """A wait of normal_s seconds in a normal build, stretched by the sanitizer's slowdown (as ctest's TIMEOUT)."""
    return normal_s * int(os.environ.get("LAB_TIME_SCALE") or 1)
