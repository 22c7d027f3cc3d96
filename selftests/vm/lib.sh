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

# Put ftrace and the module back to defaults.
ng_reset() {
	echo 0 >"$TRACING/tracing_on"
	echo nop >"$TRACING/current_tracer"
	echo >"$TRACING/set_ftrace_filter"
	echo >"$TRACING/set_graph_function"
	echo 1 >"$TRACING/tracing_on"
	if ng_loaded; then
		echo 0 >"$NG/tracing_on" 2>/dev/null
		rmmod nanograph 2>/dev/null || echo "reset: rmmod failed"
	fi
	return 0
}

if [ "${1:-}" = reset ]; then
	ng_reset
fi
