#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the rig itself: the in-VM runner (selftests/vm/run.sh)
# run on the host, in a scratch directory, on throw-away tests and a
# stub lib.sh, so that what it promises is checked without a boot:
#   - a test that never ends is killed at its "# timeout:" with all it
#     started, reported "not ok ... # TIMEOUT" with its tasks' state, and
#     the tests after it still run;
#   - a test under its limit is not disturbed;
# and the host's reading of a boot (tools/vm/results.sh) on made-up
# console logs: a line per test, a boot without results, a short KTAP,
# splats with and without nanograph in them.
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
if grep -q '^not ok 1 10-hang # TIMEOUT' <<<"$out"; then
	ok "run.sh: the test past its limit is reported not ok, TIMEOUT"
else
	nok "run.sh: the test past its limit is not reported TIMEOUT" "$out"
fi
if grep -q '^# watchdog: no end after 2s' <<<"$out"; then
	ok "run.sh: the report says what the test's tasks were doing"
else
	nok "run.sh: no watchdog report in the output" "$out"
fi
if grep -q '^ok 2 20-quick$' <<<"$out" && grep -q '^ok 3 30-slow$' <<<"$out"; then
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

# The host's reading of a boot (tools/vm/results.sh), on made-up console
# logs: each test's line, a boot without results, a short KTAP, and the
# console check that fails a splat with nanograph in it but only notes
# the kernel's own stall in its ftrace text patching.
# results_of NAME: the results of the console log on stdin, and "rc=N".
results_of() {
	local d=$tmp/res/$1
	mkdir -p "$d/t-1"
	cat >"$d/t-1/console.log"
	(
		OUTBASE=$d TAG=t-1 CACHE=$tmp/cache
		log() { :; }
		# shellcheck source=tools/vm/ftracetest.sh
		. "$ROOT/tools/vm/ftracetest.sh"
		# shellcheck source=tools/vm/results.sh
		. "$ROOT/tools/vm/results.sh"
		results
		echo "rc=$?"
	) 2>&1
}
# expect NAME OUT LINE...: OUT has every LINE (fixed strings, whole lines).
expect() {
	local name=$1 out=$2 l
	shift 2
	for l in "$@"; do
		grep -qxF -- "$l" <<<"$out" || { nok "results.sh: $name: no '$l'" "$out"; return; }
	done
	ok "results.sh: $name"
}
ktap() { printf 'NANOGRAPH-KTAP-BEGIN\r\nTAP version 13\r\n%s\r\nNANOGRAPH-KTAP-END\r\n' "$1"; }
stall='[  400.100000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[  400.200000]  text_poke_bp_batch+0x10/0x20
[  400.300000]  ftrace_replace_code+0x10/0x20
[  400.400000]  register_ftrace_graph+0x10/0x20'

out=$(ktap "$(printf '1..3\nok 1 00-a\nnot ok 2 01-b\nok 3 02-c # SKIP why')" | results_of tests)
expect "a line per test, the console's, the counts" "$out" "ok - t-1 00-a" \
	"not ok - t-1 01-b" "ok - t-1 02-c # SKIP why" \
	"ok - t-1 console: no warnings, oopses, stalls or lockups with nanograph in them" \
	"# t-1: 2 passed, 1 failed, 1 skipped" "rc=1"
out=$(ktap "$(printf '1..3\nok 1 00-a')" | results_of short)
expect "a KTAP shorter than its plan fails" "$out" "ok - t-1 00-a" \
	"not ok - t-1 ktap: planned 3 tests, saw 1" "rc=1"
out=$(printf 'nanograph-vm: test 05-x started\r\n' | results_of noktap)
expect "a boot without KTAP names the last test started" "$out" \
	"not ok - t-1 boot: no KTAP results; the last test started was 05-x (see $tmp/res/noktap/t-1/console.log)" "rc=1"
out=$({ echo "$stall"; ktap "$(printf '1..1\nok 1 00-a')"; } | results_of ownstall)
expect "the kernel's own stall in its text patching is noted, not counted" "$out" \
	"ok - t-1 console: no warnings, oopses, stalls or lockups with nanograph in them" \
	"# t-1 console: 1 stall(s) of the kernel's own ftrace text patching under emulation, no nanograph code in them, not counted:" \
	"# t-1: 2 passed, 0 failed, 0 skipped" "rc=0"
out=$({ echo "$stall"; echo '[  400.500000]  ng_hook+0x1/0x2 [nanograph]'
	ktap "$(printf '1..1\nok 1 00-a')"; } | results_of ngstall)
expect "a stall with nanograph in it fails" "$out" \
	"not ok - t-1 console: kernel splat" "# t-1: 1 passed, 1 failed, 0 skipped" "rc=1"
