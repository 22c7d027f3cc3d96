#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the in-VM selftests, sourced before each test.  Run as a
# command ("lib.sh reset") it puts tracing back to a known state.

NG=/sys/kernel/nanograph
TRACING=/sys/kernel/tracing
KO=/nanograph/nanograph.ko
TESTMOD=/nanograph/ng_testmod.ko
NGTEST=/nanograph/ngtest

# Stop the test with a message; the runner shows the log's tail.
fail() {
	echo "FAIL: $*"
	exit 1
}

# The machine is wedged (a CPU locked up with interrupts off): fail, and
# tell the runner, which then runs nothing more (resetting ftrace would
# patch text, which waits for every CPU) and reports at once.
NG_WEDGED=/tmp/ng-wedged
ng_wedged() {
	echo "$*" >"$NG_WEDGED"
	fail "$*"
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
	# The module holds a reference on itself until the drain is done
	# (0.1 to 0.2 s): polled every 20 ms, with builtins only.
	ng_uptime
	d_end=$((u_cs + ${1:-10} * 100))
	while :; do
		read -r d_ref </sys/module/nanograph/refcnt || d_ref=gone
		[ "$d_ref" != 0 ] || break
		ng_uptime
		[ "$u_cs" -le $d_end ] || fail "frames did not drain: $(cat "$NG/stats" | tail -n 3)"
		sleep 0.02
	done
}

# ng_raw_count: "entries exits meta" in the raw records on stdin, parsed
# here independently of the collector.  The top byte of the first word
# (little-endian: the 8th) is below 0x7f for an entry, 0x7f for a task,
# clock or comm record (a clock or a comm, kind 2 or 3 in the low byte,
# takes the next record too), 0x80 and up for an exit.
ng_raw_count() {
	od -An -v -tx1 | awk '
		skip { skip = 0; next }
		$8 == "7f" { m++; if ($1 == "02" || $1 == "03") skip = 1; next }
		$8 >= "80" { x++; next }
		{ e++ }
		END { print e + 0, x + 0, m + 0 }'
}

# Set u_cs to the centiseconds since boot (/proc/uptime, read by the
# shell itself: no process started, for polling loops).
ng_uptime() {
	read -r u_up u_idle </proc/uptime
	u_cs=${u_up%.*}${u_up#*.}
}

# Milliseconds since boot (/proc/uptime: 10 ms steps).
ng_now_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# ng_note TEXT: a line for the test's log and for the kernel log
# (dmesg.txt on the host), where figures of a passing test are kept.
ng_note() {
	echo "$*"
	echo "<6>nanograph-selftest: ${NG_TEST:-}: $*" >/dev/kmsg 2>/dev/null || :
}

# A seed for a randomised test: ngvm.seed= from the kernel command line
# (NANOGRAPH_SEED on the host) to replay a run, else a fresh one.
ng_seed() {
	s=$(sed -n 's/.*ngvm\.seed=\([0-9]*\).*/\1/p' /proc/cmdline)
	[ -n "$s" ] || s=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	echo "$s"
}

# The kernel's traceable functions, read once a boot into a file: the
# list (50,000 lines) takes 0.3 s to read under emulation, 2.5 s with
# the module loaded, and does not change while the kernel runs (a
# module's functions, "name [module]", never match a bare name).
NG_FUNCS=/tmp/ng-functions
ng_functions() {
	[ -s "$NG_FUNCS" ] && return 0
	cat "$TRACING/available_filter_functions" >"$NG_FUNCS.$$" &&
		mv "$NG_FUNCS.$$" "$NG_FUNCS"
}

# ng_has_func NAME: NAME is a traceable function on this kernel.
ng_has_func() {
	ng_functions
	grep -qx "$1" "$NG_FUNCS"
}

# ng_traceable NAME...: those of the NAMEs that are traceable functions
# on this kernel, in the order given, each after a space (one pass over
# the list for all of them).
ng_traceable() {
	ng_functions
	printf '%s\n' "$@" >/tmp/ng-want.$$
	t_have=" $(grep -x -F -f /tmp/ng-want.$$ "$NG_FUNCS" | tr '\n' ' ')"
	rm -f /tmp/ng-want.$$
	for t_f in "$@"; do
		case $t_have in *" $t_f "*) printf ' %s' "$t_f" ;; esac
	done
}

# ng_hook FILE GLOB...: FILE (a list file of the module) holds the GLOBs,
# written one a write, the first replacing what was there.  One write of
# several globs tries each on a scratch filter before applying them all
# (two passes of ftrace's matcher over every function each, 0.1 s a pass
# under emulation); a write of one glob is one pass.  For globs known to
# match (a failed append would leave the list half written), and before
# recording starts (each write while recording patches the text again).
ng_hook() {
	h_file=$1
	shift
	[ $# -gt 0 ] || fail "no globs to write to $h_file"
	h_op=">"
	for h_glob in "$@"; do
		if [ "$h_op" = ">" ]; then
			echo "$h_glob" >"$h_file" || fail "cannot write $h_glob to $h_file"
		else
			echo "$h_glob" >>"$h_file" || fail "cannot append $h_glob to $h_file"
		fi
		h_op=">>"
	done
}

# ng_wait_bounded SECONDS PID [LOG]: wait for the background job PID; if
# it is still running after SECONDS, show LOG's tail, kill the job and
# fail (a hang becomes a failure line, not a stuck VM).  Otherwise
# returns the job's status.  Not to be redirected: fail must reach the
# test's own output.
ng_wait_bounded() {
	b_limit=$(($1 * 10))
	b_i=0
	while kill -0 "$2" 2>/dev/null; do
		b_i=$((b_i + 1))
		if [ "$b_i" -gt "$b_limit" ]; then
			[ -z "${3:-}" ] || tail -n 20 "$3"
			kill -9 "$2" 2>/dev/null
			fail "job $2 still running after $1 s"
		fi
		sleep 0.1
	done
	wait "$2"
}

# ng_wait_asleep PID [SECONDS]: wait (default 10 s at most, polled every
# 20 ms) until task PID sleeps (state S in /proc/PID/stat), instead of a
# fixed pause; fail if it does not.  For a task started to block, in a
# pipe read say: asleep there, it holds its hooked frames.
ng_wait_asleep() {
	ng_uptime
	w_end=$((u_cs + ${2:-10} * 100))
	while :; do
		w_st=
		read -r w_st </proc/$1/stat 2>/dev/null || :
		w_st=${w_st##*) }
		[ "${w_st%% *}" != S ] || return 0
		ng_uptime
		[ "$u_cs" -le $w_end ] || fail "task $1 not asleep after ${2:-10} s (state '${w_st%% *}')"
		sleep 0.02
	done
}

# ng_stats_settled FILE: a stats snapshot that two reads in a row agree
# on (nothing returned or exited in between), into FILE; the last read
# if it does not settle within about 2 s.
ng_stats_settled() {
	cat "$NG/stats" >"$1.a"
	s_i=0
	while [ $s_i -lt 20 ]; do
		sleep 0.1
		cat "$NG/stats" >"$1"
		cmp -s "$1" "$1.a" && break
		mv "$1" "$1.a"
		s_i=$((s_i + 1))
	done
	[ -s "$1" ] || mv "$1.a" "$1"
	rm -f "$1.a"
}

# ng_balance FILE: print the figures of a stats snapshot and check that
# every recorded entry is accounted for: entries = exits +
# abandoned_frames + live_frames (frames still hooked).  Skipped calls
# never made an entry.
ng_balance() {
	awk '/^# cpu/ { for (i = 3; i <= NF; i++) col[$i] = i - 1 }
	     $1 == "total" { e = $(col["entries"]); x = $(col["exits"])
			     d = $(col["dropped"]); s = $(col["skipped"]) }
	     $1 == "abandoned_frames" { a = $2 } $1 == "live_frames" { l = $2 }
	     $1 == "live_tasks" { lt = $2 } $1 == "traced_tasks" { t = $2 }
	     END { printf "entries %d exits %d abandoned %d live_frames %d (in %d tasks) skipped %d dropped %d traced_tasks %d\n",
			  e, x, a, l, lt, s, d, t
		   if (e != x + a + l) {
			   printf "unbalanced: entries - exits - abandoned - live = %d\n", e - x - a - l
			   exit 1
		   } }' "$1"
}

# ng_pipe_fn read|write: the function a pipe(2) read or write runs
# through, which a test hooks to catch a task asleep on a pipe:
# pipe_read/pipe_write, anon_pipe_read/anon_pipe_write from 6.15 on.
ng_pipe_fn() {
	if ng_has_func "anon_pipe_$1"; then
		echo "anon_pipe_$1"
	else
		echo "pipe_$1"
	fi
}

# ng_rmmod_within SECONDS T0: rmmod (the non-blocking delete_module(2),
# tried every 10 ms) must succeed by SECONDS after T0 (ng_now_ms when
# tracing_on=0 was written, or "now": write it first): the contract,
# whatever sleeps in hooked functions.  Leaves the last stats read before
# the module went in /tmp/ng-last-stats, the time from T0 in
# NG_UNLOAD_MS.  Quiet with NG_QUIET=1.
ng_rmmod_within() {
	# To a file, not through a pipe: a shell reading a command
	# substitution sleeps in pipe_read, which a test may well hook.
	"$NGTEST" rmmod-within $(($1 * 1000)) "$2" /tmp/ng-last-stats >/tmp/ng-rmmod || {
		cat /tmp/ng-last-stats
		r_got=$(cat /tmp/ng-rmmod)
		fail "rmmod still refused (${r_got% *}) ${r_got#* } ms after tracing_on=0"
	}
	r_got=$(cat /tmp/ng-rmmod)
	NG_UNLOAD_MS=${r_got#* }
	[ ! -e "$NG" ] || fail "$NG still there after rmmod"
	[ -n "${NG_QUIET:-}" ] || echo "rmmod succeeded $NG_UNLOAD_MS ms after tracing_on=0"
}

# ng_stop_rmmod [SECONDS]: tracing_on=0, then ng_rmmod_within SECONDS
# (default 2).
ng_stop_rmmod() {
	ng_rmmod_within "${1:-2}" now
}

# ng_param NAME DEFAULT: a test's knob, ngvm.NAME= on the kernel command
# line (NANOGRAPH_PARAMS="NAME=VALUE ..." on the host), else DEFAULT.
ng_param() {
	p_v=$(sed -n "s/.*ngvm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline)
	echo "${p_v:-$2}"
}

# ng_full: does this boot run the current test at its full size?  make
# check runs a "# tier: core+full" test short in every cell and full in
# the one cell of each architecture its rotation picks (tools/check.sh):
# ngvm.full=NN,... (test numbers: the command line is short on arm);
# "all" (tools/vmtest.sh's default, make check-full) runs every test full.
ng_full() {
	f_l=$(ng_param full all)
	case ",$f_l," in *",all,"* | *",${NG_TEST%%-*},"*) return 0 ;; esac
	return 1
}

# ng_core_end: a "core+full" test's core part ends here.  What follows
# runs at full size only: in the cell make check's rotation gives the
# test, in make check-full and in make soak (ng_full).
ng_core_end() {
	! ng_full || return 0
	ng_note "the core part only: the rest runs at full size"
	if ng_loaded; then
		ng_stop_and_drain
		ng_unload
	fi
	exit 0
}

# ng_count_entries_of FUNC: from now on the top-level buffer takes only
# nanograph:func_entry events of FUNC (an event filter on the ip field:
# from FUNC's address to the next symbol's, where its ftrace call site
# is), so that "grep -c 'func_entry: FUNC '" on the trace counts FUNC's
# recorded calls however many other functions are hooked.  The module
# leaves events that someone enabled already alone.  A module's symbols
# are not listed in address order: for a module's FUNC, the lowest
# address above it of any symbol (compared as strings of one width).
ng_count_entries_of() {
	c_range=$(awk -v f="$1" 'lo && !m && $1 != lo { print "0x" lo, "0x" $1; exit }
		lo && m && ($1 "") > lo && (hi == "" || ($1 "") < hi) { hi = $1 "" }
		$3 == f && !lo { lo = $1 ""; m = $4 }
		END { if (m) print "0x" lo, "0x" hi }' /proc/kallsyms)
	case "$c_range" in
	"0x0000"*" "* | *" 0x" | "") fail "no address range for $1 in /proc/kallsyms: '$c_range'" ;;
	esac
	echo "ip >= ${c_range% *} && ip < ${c_range#* }" >"$TRACING/events/nanograph/func_entry/filter"
	echo 1 >"$TRACING/events/nanograph/func_entry/enable"
}

# Undo ng_count_entries_of.
ng_count_entries_done() {
	# The events are gone with the module if it was unloaded already.
	[ -d "$TRACING/events/nanograph" ] || return 0
	echo 0 >"$TRACING/events/nanograph/func_entry/enable"
	echo 0 >"$TRACING/events/nanograph/func_entry/filter"
}

# Put ftrace and the module back to defaults.
ng_reset() {
	echo 0 >"$TRACING/tracing_on"
	echo nop >"$TRACING/current_tracer"
	# Instances a test left, with their tracers (nanograph's pins it).
	for r_inst in "$TRACING"/instances/*; do
		[ -d "$r_inst" ] || continue
		echo nop >"$r_inst/current_tracer" 2>/dev/null
		rmdir "$r_inst" 2>/dev/null
	done
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
