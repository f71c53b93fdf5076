"""check.py: one check's verdict, as make multi's table prints it.

    check = Check("crash: A killed mid-request")
    check.expect(answer.status == 409, f"K on B within the lease: {answer}, expected 409")   # False: a problem
    return check.result("figures for the table")   # {"check", "ok", "figures", "problems", "seconds"}
"""
import time


class Check:
    """The outcome of one check: each expectation that failed is a problem, in words."""

    def __init__(self, name):
        self.name, self.problems, self.started = name, [], time.monotonic()

    def expect(self, condition, problem):
        if not condition:
            self.problems.append(problem)
        return condition

    def result(self, figures):
        return {"check": self.name, "ok": not self.problems, "figures": figures, "problems": self.problems,
                "seconds": time.monotonic() - self.started}


def plural(n, one, many):
    return f"{n} {one if n == 1 else many}"
