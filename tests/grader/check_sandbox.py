#!/usr/bin/env python3
"""check_sandbox.py: grader --sandbox hides the other submissions and the grader's reports (docs/teach/grader-for-courses.md
"Untrusted servers", grader/wire/sandbox.h).

usage: check_sandbox.py GRADER STAGE6 CASE     (CASE: passes | hides | class)

Both cases grade from a learner's folder laid out as a class is, in a fresh folder under the current one
(ctest's, in the build tree: not under /tmp, which the sandbox hides whole, so the folders below are hidden
by their own rules):
    subs/me/          the working folder of the grader and the server
    subs/other/secret another learner's file
    out/secret        a file in the folder the grader writes --json into
  passes  stage 6 on seed 1, graded with --sandbox: every check passes.
  hides   a hostile server (tests/grader/hostile_server.py --mode read-outside) that refuses to start if it
          can read either secret or write a file beside one: with --sandbox it starts and stage 2 passes;
          without, the same server reads them and the grader reports a start error (so this case can fail).
  class   grader class --sandbox on subs/ with --out out/: "me" is that hostile server, "other" a plain
          stage 6; me passes stage 1 under --sandbox (neither other's secret nor OUT reached) and is an
          error row without it.
Exit 77 (ctest's SKIP_RETURN_CODE) when the grader says --sandbox cannot work on this machine (no bwrap, or
no namespaces for it). Standard library only.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
GRADE_TIMEOUT_S = 300  # stage 6 on a busy machine takes about a minute
HERE = os.path.dirname(os.path.abspath(__file__))
PASSED = r"\b0 failed"


def grade(grader, cwd, server, extra):
    run = subprocess.run([grader, *extra, "--server", server], cwd=cwd, capture_output=True, text=True,
                         timeout=GRADE_TIMEOUT_S)
    return run.returncode, run.stdout + run.stderr


def expect(what, output, pattern):
    if not re.search(pattern, output):
        print(f"FAIL: {what}: expected /{pattern}/ in:\n{output[-4000:]}")
        sys.exit(1)
    print(f"ok: {what}")


def main():
    grader, stage6, case = sys.argv[1:4]
    server = f"{stage6} --port {{port}} --db {{db}} --admin-token {{admin_token}} --lab-controls --quiet"
    status, said = grade(grader, ".", "true", ["--stage", "1", "--sandbox"])
    if status == 2 and "--sandbox:" in said:
        print(f"SKIP: {said.strip()}")
        sys.exit(SKIP)
    # The sandbox's /tmp is its own and the home folder is hidden (docs/teach/grader-for-courses.md "Untrusted servers"): a build or a
    # clone there (a CI that clones into /tmp) hides the very server these cases start.
    hidden = [os.path.realpath(d) for d in ("/tmp", os.path.expanduser("~")) if d not in ("", "/")]
    for path in (os.path.realpath(stage6), os.path.realpath(HERE)):
        if any(path == d or path.startswith(d + os.sep) for d in hidden):
            print(f"SKIP: {path} is under a folder the sandbox hides ({', '.join(hidden)}): the server could "
                  "not run in it; build the lab elsewhere to run these cases")
            sys.exit(SKIP)

    root = tempfile.mkdtemp(prefix="sandbox-check-", dir=os.getcwd())
    try:
        me, other, out = (os.path.join(root, *p) for p in (("subs", "me"), ("subs", "other"), ("out",)))
        for folder in (me, other, out):
            os.makedirs(folder)
        secrets = [os.path.join(other, "secret"), os.path.join(out, "secret")]
        for path in secrets:
            with open(path, "w") as f:
                f.write("not for the server\n")
        reports = ["--json", os.path.join(out, "results.json")]

        # The system's python: one under the home folder (pyenv) is hidden by the sandbox too.
        python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
        hostile = " ".join([python, os.path.join(HERE, "hostile_server.py"), "--mode", "read-outside",
                            *(f"--outside {p}" for p in secrets), "--", server])
        if case == "passes":
            status, said = grade(grader, me, server, ["--stage", "6", "--seed", "1", "--histories", "1", "--sandbox", *reports])
            expect("stage 6 graded with --sandbox passes", said, PASSED)
        elif case == "hides":
            status, said = grade(grader, me, hostile, ["--stage", "2", "--seed", "1", "--histories", "1", "--sandbox", *reports])
            expect("with --sandbox it reaches neither secret and stage 2 passes", said, PASSED)
            status, said = grade(grader, me, hostile, ["--stage", "2", "--seed", "1", "--histories", "1", *reports])
            expect("without --sandbox the same server reads them (a start error)", said,
                   r"could not start the server(.|\n)*read-outside: it could read " + re.escape(secrets[0]))
            expect("... and writes beside them", said, r"write " + re.escape(other))
        elif case == "class":
            for folder, command in ((me, hostile), (other, server)):
                with open(os.path.join(folder, "lab-server.cmd"), "w") as f:
                    f.write(command + "\n")
            line = [grader, "class", "--submissions", os.path.dirname(me), "--out", out, "--stage", "1", "--jobs", "1"]
            said = subprocess.run(line + ["--sandbox"], capture_output=True, text=True,
                                  timeout=GRADE_TIMEOUT_S).stdout
            expect("grader class --sandbox: the hostile learner passes stage 1", said, r"\bme +pass\b")
            said = subprocess.run(line + ["--fresh"], capture_output=True, text=True, timeout=GRADE_TIMEOUT_S).stdout
            expect("grader class without it: the same learner reads them (an error row)", said,
                   r"\bme +error\b")
            with open(os.path.join(out, "me", "report.txt")) as f:
                expect("... its report says what it read", f.read(), r"it could read " + re.escape(secrets[0]))
        else:
            print(f"unknown case {case!r} (passes | hides | class)")
            sys.exit(2)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
