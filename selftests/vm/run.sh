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
# it on bookworm's lines and in the first cell of each architecture, and
# the others (ngvm.scope=kernel on the command line) skip it, saying so.
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
		echo "ok $i $name # SKIP scope: arch (make check runs it on the 6.1 and 6.12 cells)"
		continue
	fi
	missing=$(unmet "$t")
	if [ -n "$missing" ]; then
		echo "ok $i $name # SKIP needs $missing"
		continue
	fi
	log=/tmp/selftest-$name.log
	work=/tmp/selftest-$name
	mkdir -p "$work"
	start=$(cut -d' ' -f1 /proc/uptime)
	(cd "$work" && NG_TEST="$name" sh -e -c ". '$here/lib.sh'; . '$t'") >"$log" 2>&1
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
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
