#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the in-VM selftests and report KTAP (kselftest conventions).
#
# Each test is a shell script tests/NN-name.tc in the style of the
# kernel's ftracetest: a "# description:" line, an optional
# "# requires:" line naming tracefs files or tracers the test needs, and
# a body run with "sh -e" after lib.sh.  Exit status: 0 pass, 4 skip
# (unsupported here), anything else fail.  Usage: run.sh [GLOB[,GLOB...]]
# A "# scope: arch" line marks a test whose subject changes little with
# the kernel (the collector's own logic, a long scenario): make check runs
# it on bookworm's 6.1 line, the first cell of each architecture, and
# the others (ngvm.scope=kernel on the command line) skip it, saying so.
# A "# tier: core" line marks a test that make check runs in every cell;
# the others (and "# tier: core+full" ones at their full size: ng_full in
# lib.sh) run in one cell of each architecture, which moves with the
# commit (tools/check.sh, Documentation/testing.md), or to one cell of
# the whole matrix with a "# rotation: matrix" line; the host passes the
# list to run, so neither line is read here.
# NG_TESTS_DIR names another directory of tests next to tests/ (soak/:
# the long test of "make soak", never part of the normal run).

here=$(cd "$(dirname "$0")" && pwd)
dir=$here/${NG_TESTS_DIR:-tests}
# Each comma-separated glob selects tests by file name; in name order.
tests=$(set -f; IFS=,; for g in ${1:-*}; do
	(set +f; ls "$dir"/$g.tc 2>/dev/null)
done | sort -u)
n=$(echo "$tests" | grep -c .)

# A test's requirements: tracefs files (relative to the tracing dir) or
# "tracer:NAME" for an available tracer.  Prints the first unmet one.
unmet() {
	for r in $(sed -n 's/^# requires: *//p' "$1"); do
		case "$r" in
		tracer:*)
			grep -qw "${r#tracer:}" /sys/kernel/tracing/available_tracers || { echo "$r"; return; } ;;
		*)
			[ -e "/sys/kernel/tracing/$r" ] || { echo "$r"; return; } ;;
		esac
	done
}

# Booted by the rig (not tools/rig-check.sh running this on the host):
# the console and sysrq are ours to write to.
in_vm=$(sed -n 's/.*\(ngvm\.mode=\).*/\1/p' /proc/cmdline)
# Where the logs and the timeout mark go (tools/rig-check.sh: its own).
run_tmp=${NG_RUN_TMP:-/tmp}
# A test that runs longer than its "# timeout: SECONDS" line (0: none;
# default 600; ngvm.test_timeout= on the kernel command line sets the
# default and raises any line below it) is
# killed with all it started and reported "not ok" with what its tasks
# were doing, and the run goes on: a test blocked forever costs one
# test, not the whole boot and its results.
NG_TEST_TIMEOUT=$(sed -n 's/.*ngvm\.test_timeout=\([0-9]*\).*/\1/p' /proc/cmdline)
NG_TEST_TIMEOUT_SET=$NG_TEST_TIMEOUT
NG_TEST_TIMEOUT=${NG_TEST_TIMEOUT:-600}

# watchdog PID LIMIT LOG: after LIMIT seconds of PID (a session leader)
# write each of its session's tasks with its kernel stack, and the
# blocked tasks the kernel sees (sysrq-w), to LOG; then kill the session.
watchdog() {
	w_n=0
	while kill -0 "$1" 2>/dev/null; do
		if [ "$w_n" -ge "$2" ]; then
			touch "$run_tmp/ng-timeout"
			{
				echo "watchdog: no end after ${2}s; the test's tasks:"
				for w_d in /proc/[0-9]*; do
					[ "$(cut -d' ' -f6 "$w_d/stat" 2>/dev/null)" = "$1" ] || continue
					echo "$(cut -d' ' -f1-3 "$w_d/stat") $(tr '\0' ' ' <"$w_d/cmdline")"
					sed 's/^/    /' "$w_d/stack" 2>/dev/null
				done
				[ -z "$in_vm" ] || echo w >/proc/sysrq-trigger 2>/dev/null
				echo "watchdog: kernel log:"
				dmesg | tail -n 30
			} >>"$3" 2>&1
			kill -9 "-$1" 2>/dev/null
			return
		fi
		w_n=$((w_n + 1))
		sleep 1
	done
}

echo "KTAP version 1"
echo "1..$n"
i=0
rm -f /tmp/ng-wedged
# The list of traceable functions the tests look names up in, read while
# no module is loaded (lib.sh, ng_functions: 2.5 s with one loaded).
sh -c ". '$here/lib.sh'; ng_functions" >/dev/null 2>&1 || :
# The first test starts from the state the reset leaves the others: its
# "current_tracer" write also grows the boot-time buffer (a page a CPU),
# which a test that hooks vfs_read for every task and then looks for one
# task's events in it would overrun.
"$here/lib.sh" reset >/dev/null 2>&1 || :
for t in $tests; do
	i=$((i + 1))
	name=$(basename "$t" .tc)
	# A test found the machine wedged (lib.sh ng_wedged): touching ftrace
	# again would hang; report the rest as not run.
	if [ -e /tmp/ng-wedged ]; then
		echo "not ok $i $name # not run: machine wedged: $(cat /tmp/ng-wedged)"
		continue
	fi
	desc=$(sed -n 's/^# description: *//p' "$t")
	if grep -q '^# scope: *arch' "$t" && grep -q 'ngvm\.scope=kernel' /proc/cmdline; then
		echo "ok $i $name # SKIP scope: arch (make check runs it in each architecture's 6.1 cell)"
		continue
	fi
	missing=$(unmet "$t")
	if [ -n "$missing" ]; then
		echo "ok $i $name # SKIP needs $missing"
		continue
	fi
	log=$run_tmp/selftest-$name.log
	work=$run_tmp/selftest-$name
	mkdir -p "$work"
	limit=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$t")
	limit=${limit:-$NG_TEST_TIMEOUT}
	# A test's own limit, unless ngvm.test_timeout gives more: make soak
	# raises it for the full sizes (ftracetest's every directory).
	[ -z "$NG_TEST_TIMEOUT_SET" ] || [ "$limit" = 0 ] || [ "$limit" -ge "$NG_TEST_TIMEOUT" ] ||
		limit=$NG_TEST_TIMEOUT
	start=$(cut -d' ' -f1 /proc/uptime)
	# The console shows which test runs (the KTAP is printed at the end):
	# a boot that times out says where it stopped.
	[ -z "$in_vm" ] || echo "nanograph-vm: test $name started" >/dev/kmsg 2>/dev/null || :
	# In its own session, so that the watchdog can kill all it started.
	(cd "$work" && NG_TEST="$name" exec setsid sh -e -c ". '$here/lib.sh'; . '$t'") >"$log" 2>&1 &
	pid=$!
	wd=
	if [ "$limit" -gt 0 ]; then
		watchdog "$pid" "$limit" "$log" &
		wd=$!
	fi
	wait "$pid"
	rc=$?
	[ -z "$wd" ] || kill "$wd" 2>/dev/null || :
	end=$(cut -d' ' -f1 /proc/uptime)
	if [ -e "$run_tmp/ng-timeout" ]; then
		rm -f "$run_tmp/ng-timeout"
		echo "not ok $i $name # TIMEOUT: no end after ${limit}s"
		grep -v '^#' "$log" | tail -n 60 | sed 's/^/# /'
		[ -e /tmp/ng-wedged ] || "$here/lib.sh" reset >>"$log" 2>&1
		continue
	fi
	# Leave the next test a known state whatever this one did.
	[ -e /tmp/ng-wedged ] || "$here/lib.sh" reset >>"$log" 2>&1
	echo "# $name: $desc ($(awk "BEGIN { printf \"%.1f\", $end - $start }")s)"
	case $rc in
	0)
		echo "ok $i $name"
		# A passing test's notes ("# " lines) are worth keeping too.
		grep '^# ' "$log" | sed 's/^/# /' || :
		;;
	4) echo "ok $i $name # SKIP $(tail -n 1 "$log")" ;;
	*)
		echo "not ok $i $name"
		tail -n 40 "$log" | sed 's/^/# /'
		;;
	esac
done
