#!/bin/sh
# expect_status.sh STATUS COMMAND...: runs COMMAND with its output shown (stderr too), then says whether it
# ended with exit status STATUS. A test's PASS_REGULAR_EXPRESSION ignores the exit status, so the tests that
# judge both match the output and, at its end, "exit status STATUS, as expected" (grader explore's tests).
want=$1
shift
"$@" 2>&1
got=$?
if [ "$got" = "$want" ]; then
  echo "exit status $got, as expected"
else
  echo "exit status $got, expected $want"
  exit 1
fi
