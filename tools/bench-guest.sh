#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the benchmark VM (tools/bench.sh): the same workload, with
# the same function filter, under each tracer in turn, several rounds,
# the order of the tracers rotated each round.  Prints one line per run:
#
#   run ROUND MODE NS CALLS EVENTS LOST [BEST]
#
# and, for the whole kernel (every function hooked, every task traced, a
# fork + exec + pipe + file workload of FORKS children), "wrun" lines of
# the same fields; and the cost of a context switch with options/sched on,
# "srun" lines (below).
#
# NS is the workload's own CLOCK_MONOTONIC time around its loop, BEST the
# time at its fastest slice's pace (the timed rounds only); CALLS the
# traced calls; EVENTS what the buffer holds afterwards; LOST what the
# buffer dropped.  Then "mem KEY VALUE" lines.  The host computes the
# medians, the cost per call and the ratios.
N=${1:-20000}
ROUNDS=${2:-5}
FORKS=${3:-0}
T=/sys/kernel/tracing
NG=/sys/kernel/nanograph
NGTEST=/nanograph/ngtest

insmod /nanograph/nanograph.ko || exit 1

# The read path of /dev/zero, whatever this kernel calls it.
CANDIDATES="__x64_sys_read __arm64_sys_read sys_read ksys_read vfs_read
rw_verify_area security_file_permission apparmor_file_permission
read_iter_zero read_zero iov_iter_zero __fsnotify_parent fsnotify_perm
__fdget_pos fdget_pos __f_unlock_pos"
FUNCS=
for f in $CANDIDATES; do
	grep -qx "$f" $T/available_filter_functions && FUNCS="$FUNCS $f"
done
echo "funcs$FUNCS"

# Room for every event of a round in the buffers (per CPU); the
# collector's runs below use its own default instead.
echo 32768 >$T/buffer_size_kb
HAVE_RAW=
[ -e $NG/buffer_mode ] && HAVE_RAW=1
RAW_KB_DEFAULT=
[ -z "$HAVE_RAW" ] || RAW_KB_DEFAULT=$(cat $NG/raw_buffer_size_kb)
[ -z "$HAVE_RAW" ] || echo 32768 >$NG/raw_buffer_size_kb

# The workload prints its loop's time and the time at the pace of the
# fastest of CHUNKS slices of it (ngtest loop-read): split_times sets ns
# and best from the two.
CHUNKS=20
workload() {
	$NGTEST loop-read /dev/zero "$N" "$CHUNKS"
}

split_times() {
	ns=$1 best=$2
}

# record's default buffer per CPU, KiB: what trace-cmd gets in the
# comparisons with it.
REC_KB=$(nanograph record --help 2>&1 | sed -n 's/.*--buffer-kb.*default: \([0-9]*\).*/\1/p')
[ -n "$REC_KB" ] || REC_KB=8192

# Sum one field over the ftrace buffer's per-CPU stats.
rb_stat() {
	cat $T/per_cpu/cpu*/stats | awk -v k="$1" 'index($0, k ":") == 1 { s += $NF } END { print s + 0 }'
}

ng_total() {
	awk -v c="$1" '$1 == "total" { print $c }' $NG/stats
}

# Wait until the module has let go of every hooked frame and ended its
# drain (it holds a reference on itself until then, and buffer_mode is
# EBUSY): at most 10 s.
ng_idle() {
	i=0
	while [ "$(cat /sys/module/nanograph/refcnt)" != 0 ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

m_none() {
	# shellcheck disable=SC2046
	split_times $(workload)
	echo "$ns 0 0 0 $best"
}

# The kernel's own tracers: function (one event per call) and
# function_graph (an entry and a return event per call).
#
# ftrace_run TRACER FILTER WORKLOAD: TRACER switched on with ftrace's
# tracing_on off (hooking takes no workload time), WORKLOAD timed; sets
# ns, ev (the buffer's entries) and lost.
ftrace_run() {
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo "$2" >$T/set_ftrace_filter
	echo "$1" >$T/current_tracer
	echo 1 >$T/tracing_on
	ns=$($3)
	echo 0 >$T/tracing_on
	ev=$(rb_stat entries)
	lost=$(($(rb_stat overrun) + $(rb_stat "dropped events")))
	echo nop >$T/current_tracer
	echo >$T/set_ftrace_filter
	echo >$T/trace
	echo 1 >$T/tracing_on
}

m_ftrace() {
	ftrace_run "$1" "$FUNCS" workload
	# shellcheck disable=SC2086
	split_times $ns
	if [ "$1" = function ]; then calls=$ev; else calls=$((ev / 2)); fi
	echo "$ns $calls $ev $lost $best"
}

# calls_events 1|0: the one-event form (func_call, func_open) in the
# top-level buffer, as nanograph record --events takes it in its own
# instance; enabled before tracing_on, the module adds no entry or exit.
calls_events() {
	[ -d $T/events/nanograph/func_call ] || return 1
	echo "$1" >$T/events/nanograph/func_call/enable
	echo "$1" >$T/events/nanograph/func_open/enable
}

# nanograph; $1 is the buffer mode, events (the ftrace buffer: entry and
# exit events, the module's default there), calls (the ftrace buffer,
# one func_call per call) or raw; "none" is events mode with the events
# switched off again: the hook, the shadow stack and the trampoline
# alone, what every mode pays.
m_ng() {
	mode=$1
	case $mode in raw* | flight*) buf=raw ;; *) buf=events ;; esac
	[ "$buf" != raw ] || [ -n "$HAVE_RAW" ] || return 1
	if [ -n "$HAVE_RAW" ]; then
		echo $buf >$NG/buffer_mode ||
			{ echo "# $mode: buffer_mode refused"; return 1; }
	fi
	# The flight recorder armed, with a trigger that never fires (its
	# check runs at every exit of the first function): in buffers too big
	# to fill (flight), or in 64 KiB ones, overwriting at every record
	# (flight_full, its steady state); flight_clocks with a time trigger,
	# so that the scheduler probes keep every traced task's clocks and
	# each frame takes them.
	case $mode in
	flight*)
		[ -e $NG/flight ] || return 1
		[ "$mode" != flight_full ] || echo 64 >$NG/raw_buffer_size_kb
		set -- $FUNCS
		if [ "$mode" = flight_clocks ]; then
			echo "$1:oncpu>3600s" >$NG/trigger || return 1
		else
			echo "$1>3600s" >$NG/trigger
		fi
		echo arm >$NG/flight
		;;
	esac
	echo >$T/trace
	echo "$FUNCS" >$NG/set_ftrace_filter
	e0=$(ng_total 2)
	d0=$(ng_total 4)
	[ "$mode" != calls ] || calls_events 1 || return 1
	# raw_sched: raw with the scheduling records on (options/sched);
	# raw_counters: with each call's faults and switches (options/counters);
	# raw_retval, raw_retaddr: each call's return register, call site;
	# raw_args: its argument registers, as many as the arch has.
	[ "$mode" != raw_sched ] || echo 1 >$NG/options/sched || return 1
	[ "$mode" != raw_counters ] || echo 1 >$NG/options/counters || return 1
	[ "$mode" != raw_retval ] || echo 1 >$NG/options/retval || return 1
	[ "$mode" != raw_retaddr ] || echo 1 >$NG/options/retaddr || return 1
	[ "$mode" != raw_args ] || echo 6 >$NG/options/args 2>/dev/null ||
		echo 4 >$NG/options/args || return 1
	# raw_ops: raw through ftrace's ops callback, where raw itself goes
	# through the direct trampoline (options/direct).
	[ "$mode" != raw_ops ] || echo 0 >$NG/options/direct || return 1
	echo 1 >$NG/tracing_on
	[ "$mode" != none ] || echo 0 >$T/events/nanograph/enable
	# shellcheck disable=SC2046
	split_times $(workload)
	echo 0 >$NG/tracing_on
	ng_idle
	[ "$mode" != raw_sched ] || echo 0 >$NG/options/sched
	[ "$mode" != raw_counters ] || echo 0 >$NG/options/counters
	[ "$mode" != raw_retval ] || echo 0 >$NG/options/retval
	[ "$mode" != raw_retaddr ] || echo 0 >$NG/options/retaddr
	[ "$mode" != raw_args ] || echo 0 >$NG/options/args
	[ "$mode" != raw_ops ] || echo 1 >$NG/options/direct
	[ "$mode" != calls ] || calls_events 0
	calls=$(($(ng_total 2) - e0))
	[ "${mode#flight}" = "$mode" ] || echo off >$NG/flight
	if [ "$buf" = raw ]; then
		ev=$(($(cat $NG/per_cpu/cpu*/raw | wc -c) / 16))
		lost=$(($(ng_total 4) - d0))
		if [ "${mode#flight}" != "$mode" ]; then
			echo >$NG/trigger
			echo 32768 >$NG/raw_buffer_size_kb
		fi
	else
		ev=$(rb_stat entries)
		lost=$(($(rb_stat overrun) + $(rb_stat "dropped events")))
	fi
	echo >$T/trace
	echo "$ns $calls $ev $lost $best"
}

# BPF's design, for scale: an fentry and an fexit program on each
# function (ngbpf pair), each counting its runs in a map, entered through
# BPF's trampoline, which ftrace's direct call reaches and which calls
# the function itself.  What issue 32's targets were set from; no record
# is written.  Calls are the runs over two.  On arm64 (Debian's 6.12)
# the pair on read_zero makes the workload's read return 0, in a boot
# where nanograph never loaded as well (30 November): read_zero is left
# out there, its calls not counted.
m_bpf() {
	bfuncs=$FUNCS
	[ "$(uname -m)" != aarch64 ] || bfuncs=$(echo " $FUNCS " | sed 's/ read_zero / /')
	# shellcheck disable=SC2086
	/nanograph/ngbpf pair 3600 $bfuncs >/tmp/bpf.out 2>/tmp/bpf.err &
	bpid=$!
	i=0
	while ! grep -q '^attach' /tmp/bpf.out && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! grep -qx attached /tmp/bpf.out; then
		kill $bpid 2>/dev/null
		wait $bpid
		sed 's/^/# bpf_pair: /' /tmp/bpf.out /tmp/bpf.err
		return 1
	fi
	# shellcheck disable=SC2046
	split_times $(workload)
	kill -TERM $bpid
	wait $bpid
	# A read that failed under the programs prints its errno (or 0).
	case $ns in '' | *[!0-9]*) echo "# bpf_pair: the workload failed: $ns"; return 1 ;; esac
	[ "$ns" != 0 ] || { echo "# bpf_pair: the workload failed: a read returned 0"; return 1; }
	hits=$(sed -n 's/^hits //p' /tmp/bpf.out)
	[ -n "$hits" ] || { sed 's/^/# bpf_pair: /' /tmp/bpf.out /tmp/bpf.err; return 1; }
	echo "$ns $((hits / 2)) 0 0 $best"
}

# The collector streaming while the workload runs, default buffer sizes:
# what a user gets.  Timing is not comparable (the collector shares the
# emulated CPUs); the point is the lost count.
m_record() {
	mode=$1
	shift
	hooks=
	for f in $FUNCS; do hooks="$hooks --hook $f"; done
	# shellcheck disable=SC2086
	out=$(nanograph record "$@" -o /tmp/bench.rec $hooks -- $NGTEST loop-read /dev/zero "$N" 2>/tmp/bench.err)
	rm -rf /tmp/bench.rec
	set -- $(summary_counts /tmp/bench.err)
	[ $# = 3 ] || { sed 's/^/# /' /tmp/bench.err; return 1; }
	echo "$out $2 $1 $3"
}

# summary_counts FILE: "EVENTS CALLS LOST" from the summary line that
# nanograph record and convert print.
summary_counts() {
	sed -n 's/.* \([0-9]*\) events (\([0-9]*\) calls), \([0-9]*\) lost.*/\1 \2 \3/p' "$1"
}

# tc_start CMD...: trace-cmd recording the one-event form (what record
# --events takes) into /tmp/bench.dat with record's default buffer size
# per CPU, started through CMD (a shell that runs its $0, after putting
# itself in a pid list if it is to); returns once the events are on.
# tc_stop: stop it (not in a subshell: it waits for trace-cmd to finish
# writing); tc_counts: what it kept and lost, by converting its trace.dat
# ("EVENTS CALLS LOST").
tc_start() {
	command -v trace-cmd >/dev/null || { echo "no trace-cmd"; return 1; }
	[ -d $T/events/nanograph/func_call ] || { echo "no nanograph:func_call"; return 1; }
	rm -rf /tmp/bench.dat /tmp/bench.tc
	"$@" "exec trace-cmd record -q -b $REC_KB -o /tmp/bench.dat -e nanograph:func_call \
		-e nanograph:func_open -e nanograph:clock_sync" >/tmp/bench-tc.log 2>&1 &
	tc=$!
	until [ "$(cat $T/events/nanograph/func_call/enable)" = 1 ]; do
		kill -0 $tc 2>/dev/null || { sed 's/^/# /' /tmp/bench-tc.log; return 1; }
		sleep 0.1
	done
}

tc_stop() {
	kill -INT $tc
	wait $tc
	echo 32768 >$T/buffer_size_kb	# as the timed rounds want it
}

tc_counts() {
	nanograph convert -o /tmp/bench.tc /tmp/bench.dat 2>/tmp/bench.err >/dev/null
	c=$(summary_counts /tmp/bench.err)
	rm -rf /tmp/bench.dat /tmp/bench.tc
	[ -n "$c" ] || { sed 's/^/# /' /tmp/bench.err /tmp/bench-tc.log; return 1; }
	echo "$c"
}

# trace-cmd streaming the same calls as m_record: the collector's
# throughput and losses against trace-cmd's on the same events, buffers
# of the same size.  The workload puts itself in set_event_pid.
m_tracecmd() {
	echo events >$NG/buffer_mode
	echo "$FUNCS" >$NG/set_ftrace_filter
	echo 1 >$NG/options/event-fork
	echo 1 >$NG/set_event_pid
	tc_start sh -c '$0' || return 1
	echo 1 >$NG/tracing_on
	ns=$(sh -c "echo \$\$ >$NG/set_event_pid; exec $NGTEST loop-read /dev/zero $N")
	echo 0 >$NG/tracing_on
	ng_idle
	echo >$NG/set_event_pid
	echo 0 >$NG/options/event-fork
	tc_stop
	set -- $(tc_counts)
	[ $# = 3 ] || { echo "$*"; return 1; }
	echo "$ns $2 $1 $3"
}

MODES="none function function_graph ng_hook_only ng_events"
[ ! -d $T/events/nanograph/func_call ] || MODES="$MODES ng_calls"
[ -z "$HAVE_RAW" ] || MODES="$MODES ng_raw"
[ ! -e $NG/options/sched ] || MODES="$MODES ng_raw_sched"
[ ! -e $NG/options/counters ] || MODES="$MODES ng_raw_counters"
[ ! -e $NG/options/retval ] || MODES="$MODES ng_raw_retval ng_raw_args ng_raw_retaddr"
# The ops path beside the direct one, where the kernel has both; and
# there, BPF's fentry and fexit, which ride the same direct calls.
[ "$(cat $NG/options/direct 2>/dev/null)" != 1 ] || MODES="$MODES ng_raw_ops"
[ "$(cat $NG/options/direct 2>/dev/null)" != 1 ] || [ ! -e /sys/kernel/btf/vmlinux ] ||
	MODES="$MODES bpf_pair"
[ ! -e $NG/flight ] || MODES="$MODES ng_flight ng_flight_full"
[ ! -e $NG/options/counters ] || MODES="$MODES ng_flight_clocks"

run_mode() {
	case "$1" in
	none) m_none ;;
	function | function_graph) m_ftrace "$1" ;;
	ng_hook_only) m_ng none ;;
	ng_events) m_ng events ;;
	ng_calls) m_ng calls ;;
	ng_raw) m_ng raw ;;
	ng_raw_sched) m_ng raw_sched ;;
	ng_raw_counters) m_ng raw_counters ;;
	ng_raw_retval) m_ng raw_retval ;;
	ng_raw_args) m_ng raw_args ;;
	ng_raw_retaddr) m_ng raw_retaddr ;;
	ng_raw_ops) m_ng raw_ops ;;
	ng_flight) m_ng flight ;;
	ng_flight_full) m_ng flight_full ;;
	ng_flight_clocks) m_ng flight_clocks ;;
	bpf_pair) m_bpf ;;
	record_events) m_record events --events ;;
	record_raw) m_record raw --raw ;;
	tracecmd_calls) m_tracecmd ;;
	esac
}

# function_graph's shadow stacks: it gives one to every task in the
# system when first started (and keeps them), so measure that first.
s0=$(awk '$1 == "Slab:" { print $2 }' /proc/meminfo)
echo function_graph >$T/current_tracer
s1=$(awk '$1 == "Slab:" { print $2 }' /proc/meminfo)
echo nop >$T/current_tracer
echo "mem fgraph_slab_kb_delta $((s1 - s0))"
echo "mem tasks_in_system $(ls -d /proc/[0-9]* | wc -l)"

# rotated R MODE...: the modes in round R's order, rotated by R - 1, so
# that no tracer always runs first or last.
rotated() {
	i=1
	r_n=$1
	shift
	while [ $i -lt "$r_n" ]; do
		first=$1
		shift
		set -- "$@" "$first"
		i=$((i + 1))
	done
	echo "$@"
}

workload >/dev/null	# warm the caches once
r=1
while [ $r -le "$ROUNDS" ]; do
	for m in $(rotated $r $MODES); do
		res=$(run_mode "$m") && echo "run $r $m $res"
	done
	r=$((r + 1))
done

# The cost of a context switch with the scheduling records on: ngtest
# ping-pong's round trips (each side sleeps in a hooked pipe read until
# the other's hooked write wakes it) in raw mode with options/sched off
# and on, rotated, ROUNDS rounds: "srun ROUND sched_off|sched_on NS
# TRIPS RECORDS", RECORDS being stats' sched_records written.
SW_FUNCS=
for f in ksys_read ksys_write vfs_read vfs_write; do
	grep -qx "$f" $T/available_filter_functions && SW_FUNCS="$SW_FUNCS $f"
done
SW_TRIPS=$((N / 10))
sw_run() {
	echo "$SW_FUNCS" >$NG/set_ftrace_filter
	[ "$1" = sched_off ] || echo 1 >$NG/options/sched || return 1
	s0=$(awk '$1 == "sched_records" { print $2 }' $NG/stats)
	echo 1 >$NG/tracing_on
	sw_ns=$($NGTEST ping-pong $SW_TRIPS)
	echo 0 >$NG/tracing_on
	ng_idle
	echo 0 >$NG/options/sched
	s1=$(awk '$1 == "sched_records" { print $2 }' $NG/stats)
	cat $NG/per_cpu/cpu*/raw >/dev/null
	echo "$sw_ns $SW_TRIPS $((s1 - s0))"
}
if [ -e $NG/options/sched ] && [ -n "$HAVE_RAW" ] && [ -n "$SW_FUNCS" ]; then
	echo raw >$NG/buffer_mode
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for m in $(rotated $r sched_off sched_on); do
			res=$(sw_run "$m") && echo "srun $r $m $res"
		done
		r=$((r + 1))
	done
	echo events >$NG/buffer_mode
fi

# Streaming through the collector with default buffers: lost events.
RMODES="record_events tracecmd_calls"
[ -z "$HAVE_RAW" ] || RMODES="$RMODES record_raw"
for m in $RMODES; do
	if res=$(run_mode "$m"); then
		echo "run 1 $m $res"
		# record's calibration after its raw run: "calib NS INSIDE_NS".
		[ "$m" != record_raw ] ||
			sed -n 's/^nanograph: tracing cost \([0-9]*\) ns per call, \([0-9]*\) ns.*/calib \1 \2/p' /tmp/bench.err
	else
		echo "$res" | sed "s/^/# $m failed: /"
	fi
done

# Whole kernel: no function filter (every traceable function hooked),
# no pid filter (every task), ngtest fork-work as the workload, FORKS
# children.  Hooking everything takes seconds under emulation; it is done
# before the workload's clock starts and undone after it stops.
wk_workload() {
	$NGTEST fork-work "$FORKS"
}

wk_ftrace() {
	ftrace_run function_graph "" wk_workload
	echo "$ns $(((ev + lost) / 2)) $ev $lost"
}

# As function_graph is hooked with ftrace's tracing_on off, nanograph
# hooks with a pid filter that admits no task (32767: not yet given out
# in this boot), then admits every task; the buffers are emptied after
# that, so the workload starts as function_graph's does: everything
# hooked, nothing recorded before it, buffers empty.
# "retval" is raw with the flight recorder armed on a return-value
# trigger that never fires (vfs_read==-E2BIG): every exit of every
# function is looked at, what issue 27's defect 6 made a cliff.
wk_ng() {
	case $1 in raw | retval) echo raw ;; *) echo events ;; esac >$NG/buffer_mode ||
		{ echo "# $1: buffer_mode refused"; return 1; }
	[ "$1" != calls ] || calls_events 1 || return 1
	if [ "$1" = retval ]; then
		echo 'vfs_read==-E2BIG' >$NG/trigger &&
			echo arm >$NG/flight || { echo "# retval: no flight"; return 1; }
	fi
	echo >$NG/set_ftrace_filter
	echo 32767 >$NG/set_event_pid
	echo 1 >$NG/tracing_on
	echo >$NG/set_event_pid
	cat $NG/per_cpu/cpu*/raw >/dev/null
	echo >$T/trace
	e0=$(ng_total 2)
	d0=$(ng_total 4)
	ns=$(wk_workload)
	# The workload's window: unhooking everything takes seconds too,
	# recorded as well, unlike function_graph's (ftrace's tracing_on).
	calls=$(($(ng_total 2) - e0))
	lost=$(($(ng_total 4) - d0))
	if [ "$1" = retval ]; then
		# armed, the buffers overwrite and cannot be read: none counted
		echo off >$NG/flight
		echo >$NG/trigger
		ev=0
	elif [ "$1" = raw ]; then
		ev=$(($(cat $NG/per_cpu/cpu*/raw | wc -c) / 16))
	else
		echo 0 >$T/tracing_on
		ev=$(rb_stat entries)
		lost=$(($(rb_stat overrun) + $(rb_stat "dropped events")))
		echo 1 >$T/tracing_on
	fi
	echo 0 >$NG/tracing_on
	ng_idle
	[ "$1" != calls ] || calls_events 0
	echo >$T/trace
	echo "$ns $calls $ev $lost"
}

# nanograph record -a streaming the same workload with its default
# buffers, every function hooked: what it wrote and what it lost.
wk_record() {
	nanograph record -a -o /tmp/bench.wk "$@" 2>/tmp/bench.err &
	rec=$!
	# Recording: hooked, and every task admitted (record -a empties
	# set_event_pid once the hooks are in).
	until [ "$(cat $NG/tracing_on)" = 1 ] && [ -z "$(cat $NG/set_event_pid)" ]; do
		kill -0 $rec 2>/dev/null || { sed 's/^/# /' /tmp/bench.err; return 1; }
		sleep 0.1
	done
	ns=$(wk_workload)
	kill -INT $rec
	wait $rec
	rm -rf /tmp/bench.wk /tmp/bench.wk.old
	set -- $(summary_counts /tmp/bench.err)
	[ $# = 3 ] || { sed 's/^/# /' /tmp/bench.err; return 1; }
	echo "$ns $2 $1 $3"
}

# trace-cmd streaming the same workload's calls (the one-event form),
# every function hooked for every task but trace-cmd's own (kept out as
# record -a keeps itself out: set_event_notrace_pid, following its
# forks), with record's default buffer size.
wk_tracecmd() {
	echo events >$NG/buffer_mode
	echo >$NG/set_ftrace_filter
	echo 1 >$NG/options/event-fork
	tc_start sh -c "echo \$\$ >$NG/set_event_notrace_pid; \$0" || return 1
	echo 32767 >$NG/set_event_pid
	echo 1 >$NG/tracing_on
	echo >$NG/set_event_pid
	ns=$(wk_workload)
	# Nobody again before unhooking everything takes its seconds, as
	# wk_ng counts only the workload's window.
	echo 32767 >$NG/set_event_pid
	echo 0 >$NG/tracing_on
	ng_idle
	echo >$NG/set_event_pid
	tc_stop
	set -- $(tc_counts)
	echo >$NG/set_event_notrace_pid
	echo 0 >$NG/options/event-fork
	[ $# = 3 ] || { echo "$*"; return 1; }
	echo "$ns $2 $1 $3"
}

if [ "$FORKS" -gt 0 ] && [ -n "$HAVE_RAW" ]; then
	WK_ROUNDS=3
	WK_MODES="none function_graph ng_raw ng_events"
	[ ! -e $NG/flight ] || WK_MODES="$WK_MODES ng_retval"
	[ ! -d $T/events/nanograph/func_call ] || WK_MODES="$WK_MODES ng_calls"
	r=1
	while [ $r -le $WK_ROUNDS ]; do
		for m in $(rotated $r $WK_MODES); do
			case "$m" in
			none) res="$(wk_workload) 0 0 0" ;;
			function_graph) res=$(wk_ftrace) ;;
			ng_raw) res=$(wk_ng raw) ;;
			ng_retval) res=$(wk_ng retval) ;;
			ng_events) res=$(wk_ng events) ;;
			ng_calls) res=$(wk_ng calls) ;;
			esac && echo "wrun $r $m $res"
		done
		r=$((r + 1))
	done
	res=$(wk_record) && echo "wrun 1 record_raw $res"
	res=$(wk_record --events) && echo "wrun 1 record_events $res"
	if res=$(wk_tracecmd); then
		echo "wrun 1 tracecmd_calls $res"
	else
		echo "$res" | sed "s/^/# tracecmd_calls failed: /"
	fi
	echo events >$NG/buffer_mode
	echo 32768 >$NG/raw_buffer_size_kb
fi

# Memory: the shadow stacks with 1000 traced tasks alive, and the buffers.
[ -z "$HAVE_RAW" ] || echo events >$NG/buffer_mode
echo "$FUNCS" >$NG/set_ftrace_filter
echo "mem retstack_idle_bytes $(awk '$1 == "retstack_bytes" { print $2 }' $NG/stats)"
echo 1 >$NG/tracing_on
$NGTEST hold-tasks 1000 "cat $NG/stats" >/tmp/bench.stats
echo 0 >$NG/tracing_on
ng_idle
awk '$1 == "traced_tasks" || $1 == "retstack_bytes" { print "mem", $1, $2 }' /tmp/bench.stats
echo "mem ftrace_buffer_kb_per_cpu $(cat $T/buffer_size_kb)"
echo "mem cpus $(nproc)"
[ -z "$HAVE_RAW" ] || echo "mem raw_buffer_kb_per_cpu_default $RAW_KB_DEFAULT"
echo "mem record_default_buffer_kb $REC_KB"
rmmod nanograph
