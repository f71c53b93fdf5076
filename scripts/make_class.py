#!/usr/bin/env python3
"""make_class.py: a made-up class of submissions for `grader class` (docs/teach/grader-for-courses.md "Grading a class"), built from the
reference stage servers, wrong turns and mutants in a build's stages folder, and from broken and hostile
servers. Each learner is a folder with a lab-server.cmd (the folder convention of grader/cli/class_roster.h).

    scripts/make_class.py small BIN_DIR SUBMISSIONS   the test's class: 8 learners (tests/grader/check_class.py)
    scripts/make_class.py demo  BIN_DIR SUBMISSIONS   `make class-demo`'s class: 30 learners
    (two(bin_dir): 2 of the small class, for the quick test of check_class.py with relative paths)

    import make_class; make_class.write(make_class.small(bin_dir), submissions)   # the same from Python

A learner is (name, command, files): files are put in the learner's folder first (a symlink "server" to a
binary, a script), so a command may name them relatively, as a real submission's would. Python 3 standard
library only.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stage_servers  # noqa: E402  the one list of stage binaries

# How the reference binaries are started (grader/base/stage_binaries.h:stage_command says the same).
LAB_FLAGS = "--port {port} --db {db} --admin-token {admin_token} --lab-controls --quiet"
# The hostile flooder writes this much to its stderr while it serves: more than grader class's cap on a
# file (grader/cli/class_learner.h:kFileCap, 64 MiB), so in a class run the cap cuts it.
FLOOD_BYTES = 100_000_000
HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "grader", "hostile_server.py")


def served_by(binary, flags=LAB_FLAGS):
    """A submission that is a symlink to `binary`, started by a relative path."""
    return f"./server {flags}", {"server": binary}


def binary(bin_dir, name):
    return os.path.join(os.path.abspath(bin_dir), name)


def broken(bin_dir):
    """Servers that crash, hang or flood: each must be one red row (or its honest verdict), never a stopped run."""
    stage3 = binary(bin_dir, "stage3_fingerprint")
    flood_cmd, flood_files = served_by(stage3)
    return [
        ("erin-exits-at-once", "sh -c 'exit 3'", {}),
        ("frank-never-answers", "sleep 1000", {}),
        # Serves as stage 3 does while a pipeline floods its stderr past the cap.
        ("grace-floods-stderr", f"sh -c 'yes flood | head -c {FLOOD_BYTES} >&2 & exec {flood_cmd}'", flood_files),
        ("heidi-no-command", None, {}),  # a folder without lab-server.cmd
    ]


def small(bin_dir):
    """The test's class: a passing learner, two partial ones, a wrong turn, and the broken ones."""
    return [
        ("alice-stage6", *served_by(binary(bin_dir, "stage6_scope_ttl"))),
        ("bob-stage2", f"{binary(bin_dir, 'stage2_unique_key')} {LAB_FLAGS}", {}),
        ("carol-stage4", *served_by(binary(bin_dir, "stage4_two_phase"))),
        ("dave-raw-fingerprint", f"{binary(bin_dir, 'wrong_raw_fingerprint')} {LAB_FLAGS}", {}),
    ] + broken(bin_dir)


def two(bin_dir):
    """The quickest class with both kinds of row that are not a pass: a learner who fails a check, one who errors."""
    return [learner for learner in small(bin_dir) if learner[0] in ("bob-stage2", "erin-exits-at-once")]


def demo(bin_dir, size=30):
    """`make class-demo`'s class: every reference stage and wrong turn, mutants, broken and hostile servers."""
    learners = [(f"{row['label']}-{row['binary']}", *served_by(binary(bin_dir, row["binary"])))
                for row in stage_servers.rows()]
    learners += broken(bin_dir)
    stage6 = binary(bin_dir, "stage6_scope_ttl")
    learners += [
        # Dies 3 s after each start: the grader restarts it after the crashes it causes, not after this one.
        ("ivan-dies-after-3s", f"timeout -s KILL 3 {stage6} {LAB_FLAGS}", {}),
        # A start script in the submission, named relatively (the command runs in the learner's folder). It
        # passes on the flags the grader appends for a server of a check's own (--lease, --key-ttl).
        ("judy-start-script", "sh run.sh {port} {db} {admin_token}",
         {"run.sh": "#!/bin/sh\nport=$1 db=$2 token=$3\nshift 3\n"
                    f"exec {stage6} --port \"$port\" --db \"$db\" --admin-token \"$token\" --lab-controls --quiet \"$@\"\n"}),
        # Some other HTTP server on the port: it answers, but not the lab's contract (not even GET /healthz).
        ("mallory-other-server", "python3 -m http.server --bind 127.0.0.1 {port}", {}),
        # Hostile ones (tests/grader/hostile_server.py): helpers in sessions of their own, which must end with
        # each grading; a daemon, whose first process exits at once (a start error, its grandchild ended).
        ("niaj-setsid-children", f"python3 {HOSTILE} --mode setsid-children -- {stage6} {LAB_FLAGS}", {}),
        ("olivia-daemonizes", f"python3 {HOSTILE} --mode daemonize -- {stage6} {LAB_FLAGS}", {}),
    ]
    mutants = sorted(glob.glob(os.path.join(os.path.abspath(bin_dir), "mutant_*")))
    for path in mutants[: max(0, size - len(learners))]:
        learners.append((os.path.basename(path).replace("mutant_", "mutant-"), *served_by(path)))
    return learners[:size]


def write(learners, submissions):
    os.makedirs(submissions, exist_ok=True)
    for name, command, files in learners:
        folder = os.path.join(submissions, name)
        os.makedirs(folder, exist_ok=True)
        for file, content in files.items():
            path = os.path.join(folder, file)
            if os.path.lexists(path):
                os.remove(path)
            if file == "server":
                os.symlink(content, path)
            else:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(content)
        if command is not None:
            with open(os.path.join(folder, "lab-server.cmd"), "w", encoding="utf-8") as f:
                f.write(f"# {name}: the server's start command (grader class reads the first other line)\n{command}\n")


def main(argv):
    if len(argv) != 4 or argv[1] not in ("small", "demo"):
        sys.exit(__doc__)
    learners = small(argv[2]) if argv[1] == "small" else demo(argv[2])
    write(learners, argv[3])
    print(f"make_class.py: {len(learners)} learners in {argv[3]}")


if __name__ == "__main__":
    main(sys.argv)
