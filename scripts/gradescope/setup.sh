#!/usr/bin/env bash
# setup.sh: Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04 or
# newer base image). It installs a compiler and the two libraries the grader needs, and builds the grader.
# The grader is a black-box HTTP client: it needs no part of the lab's servers (no cpp-httplib, no SQLite),
# so it is compiled directly, without the lab's CMake project.
#
# Learners' servers may be written in any language: add the runtimes your course allows to EXTRA_PACKAGES
# in config.env (for example "python3 nodejs openjdk-17-jdk-headless").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=config.env
source "$here/config.env"

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086  # EXTRA_PACKAGES is a list of words on purpose
apt-get install -y -qq --no-install-recommends g++ nlohmann-json3-dev libssl-dev python3 ${EXTRA_PACKAGES:-}

# g++ 11 or newer: C++20 with <latch> and std::jthread.
g++ -std=c++20 -O2 -Wall -Wextra -I "$here/lab" \
    $(find "$here/lab/grader" -name '*.cc') -lcrypto -pthread -o "$here/grader"
"$here/grader" --help > /dev/null
echo "setup.sh: built $here/grader"
