#!/bin/sh
# expect_run.sh RC PATTERN CMD...: runs CMD, passes when it exits with RC and its combined
# stdout+stderr matches the extended regex PATTERN (CLI tests of `openinfer graph`).
want_rc=$1; pattern=$2; shift 2
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" != "$want_rc" ]; then echo "FAIL: exit code $rc, expected $want_rc"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then echo "FAIL: output does not match: $pattern"; exit 1; fi
exit 0
