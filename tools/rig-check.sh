#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the rig itself: the in-VM runner (selftests/vm/run.sh)
# run on the host, in a scratch directory, on throw-away tests and a
# stub lib.sh, so that what it promises is checked without a boot:
#   - a test that never ends is killed at its "# timeout:" with all it
#     started, reported "not ok ... # TIMEOUT" with its tasks' state, and
#     the tests after it still run;
#   - a test under its limit is not disturbed.
# KTAP-ish lines on stdout ("ok - rig ..."/"not ok - rig ..."), as
# tools/check.sh tallies them.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'pkill -KILL -f "rigcheck-$$" 2>/dev/null; rm -rf "$tmp"' EXIT

mkdir -p "$tmp/sel/tests" "$tmp/run"
cp "$ROOT/selftests/vm/run.sh" "$tmp/sel/run.sh"
# lib.sh as the runner uses it: sourced by each test, called for reset.
printf '#!/bin/sh\n[ "${1:-}" != reset ] || exit 0\nng_functions() { :; }\n' >"$tmp/sel/lib.sh"
chmod +x "$tmp/sel/lib.sh"
# 10-hang: never ends, and leaves a child that never ends either (marked
# so that it can be found); 20-quick: ends at once; 30-slow: takes 3 s of
# its 5.
cat >"$tmp/sel/tests/10-hang.tc" <<EOF
# description: never ends
# timeout: 2
sh -c 'while :; do sleep 1; done; : rigcheck-$$' &
sleep 1000
EOF
printf '# description: passes\ntrue\n' >"$tmp/sel/tests/20-quick.tc"
printf '# description: slow but in time\n# timeout: 5\nsleep 3\n' >"$tmp/sel/tests/30-slow.tc"

ok() { echo "ok - rig $1"; }
nok() { echo "not ok - rig $1"; shift; printf '# %s\n' "$@"; }

t0=$(date +%s)
out=$(NG_RUN_TMP="$tmp/run" timeout 60 sh "$tmp/sel/run.sh" 2>&1)
rc=$?
secs=$(($(date +%s) - t0))

if [ "$rc" = 124 ]; then
	nok "run.sh: a test that never ends stops the run (killed after 60 s)" "$out"
else
	ok "run.sh: returns with a test that never ends (${secs} s)"
fi
if echo "$out" | grep -q '^not ok 1 10-hang # TIMEOUT'; then
	ok "run.sh: the test past its limit is reported not ok, TIMEOUT"
else
	nok "run.sh: the test past its limit is not reported TIMEOUT" "$out"
fi
if echo "$out" | grep -q '^# watchdog: no end after 2s'; then
	ok "run.sh: the report says what the test's tasks were doing"
else
	nok "run.sh: no watchdog report in the output" "$out"
fi
if echo "$out" | grep -q '^ok 2 20-quick$' && echo "$out" | grep -q '^ok 3 30-slow$'; then
	ok "run.sh: the tests after it run, one slow but in time passes"
else
	nok "run.sh: the tests after the timeout did not pass" "$out"
fi
sleep 1
if pgrep -f "rigcheck-$$" >/dev/null; then
	nok "run.sh: the timed-out test's child still runs" "$(pgrep -af "rigcheck-$$")"
else
	ok "run.sh: the timed-out test's children are killed with it"
fi
