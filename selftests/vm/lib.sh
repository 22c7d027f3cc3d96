#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the in-VM selftests, sourced before each test.  Run as a
# command ("lib.sh reset") it puts tracing back to a known state.

NG=/sys/kernel/nanograph
TRACING=/sys/kernel/tracing
KO=/nanograph/nanograph.ko
NGTEST=/nanograph/ngtest

# Stop the test with a message; the runner shows the log's tail.
fail() {
	echo "FAIL: $*"
	exit 1
}

# Stop the test as skipped: the feature is not there on this kernel.
skip() {
	echo "$*"
	exit 4
}

ng_loaded() {
	[ -d /sys/module/nanograph ]
}

# Load the module fresh: unload first if a previous test left it in.
ng_load() {
	! ng_loaded || rmmod nanograph || fail "rmmod before load"
	insmod "$KO" "$@" || fail "insmod $KO $*"
	[ -d "$NG" ] || fail "$NG missing after insmod"
}

ng_unload() {
	rmmod nanograph || fail "rmmod nanograph"
	[ ! -e "$NG" ] || fail "$NG still there after rmmod"
}

# expect_write RESULT FILE DATA: one write(2) of DATA to FILE must end in
# RESULT, "ok" or an errno name such as EINVAL.
expect_write() {
	got=$("$NGTEST" write "$2" "$3")
	[ "$got" = "$1" ] || fail "write '$3' to $2: expected $1, got $got"
}

# expect_write_big RESULT FILE SIZE: one write of SIZE bytes of 'a's.
expect_write_big() {
	got=$("$NGTEST" write-big "$2" "$3")
	[ "$got" = "$1" ] || fail "write of $3 bytes to $2: expected $1, got $got"
}

# expect_content FILE TEXT: the whole file reads back as TEXT.
expect_content() {
	got=$(cat "$1") || fail "cannot read $1"
	[ "$got" = "$2" ] || fail "$1 reads '$got', expected '$2'"
}

# The tracer runs on the architectures the module builds for; anything
# else is a rig error, not a reason to skip.
ng_require_tracer() {
	case $(uname -m) in
	x86_64 | aarch64 | armv7l) return 0 ;;
	esac
	fail "no nanograph return trampoline for $(uname -m)"
}

# ng_total COLUMN: a column (entries exits dropped skipped) of the totals.
ng_total() {
	awk -v c="$1" '/^# cpu/ { for (i = 3; i <= NF; i++) col[$i] = i - 1 }
		$1 == "total" { print $(col[c]) }' "$NG/stats"
}

# ng_stat NAME: a "NAME value" line of the stats file.
ng_stat() {
	awk -v n="$1" '$1 == n { print $2 }' "$NG/stats"
}

# Stop recording and wait (up to $1 seconds, default 10) until no task
# holds a hooked frame and the module lets go of itself.
ng_stop_and_drain() {
	echo 0 >"$NG/tracing_on"
	i=0
	# The module holds a reference on itself until the drain is done.
	while [ "$(cat /sys/module/nanograph/refcnt)" != 0 ]; do
		i=$((i + 1))
		[ "$i" -le $((${1:-10} * 10)) ] || fail "frames did not drain: $(cat "$NG/stats" | tail -n 3)"
		sleep 0.1
	done
}

# Put ftrace and the module back to defaults.
ng_reset() {
	echo 0 >"$TRACING/tracing_on"
	echo nop >"$TRACING/current_tracer"
	echo >"$TRACING/set_ftrace_filter"
	echo >"$TRACING/set_graph_function"
	echo 1 >"$TRACING/tracing_on"
	if ng_loaded; then
		echo 0 >"$NG/tracing_on" 2>/dev/null
		# Frames may still be draining: give them a moment.
		i=0
		while ! rmmod nanograph 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		ng_loaded && echo "reset: rmmod failed"
	fi
	return 0
}

if [ "${1:-}" = reset ]; then
	ng_reset
fi
