#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of tools/profile.sh: the benchmark's read loop under each
# tracer, between markers the host watches for (it resets and dumps the
# QEMU plugin's instruction counts there).  Arguments: READS.
N=${1:-20000}
# NG, NGTEST, ng_stop_and_drain
# shellcheck source=selftests/vm/lib.sh
. /nanograph/selftests/lib.sh
T=/sys/kernel/tracing

insmod /nanograph/nanograph.ko || exit 1
# The read path bench-guest.sh times, as this kernel names it.
FUNCS=
for f in __x64_sys_read __arm64_sys_read sys_read ksys_read vfs_read \
	rw_verify_area security_file_permission apparmor_file_permission \
	read_iter_zero read_zero iov_iter_zero __fsnotify_parent fsnotify_perm \
	__fdget_pos fdget_pos __f_unlock_pos; do
	grep -qx "$f" $T/available_filter_functions && FUNCS="$FUNCS $f"
done
echo "NG-PROFILE-FUNCS$FUNCS"
echo 32768 >$T/buffer_size_kb
echo 32768 >$NG/raw_buffer_size_kb
echo "$FUNCS" >$NG/set_ftrace_filter

# Text symbols, the module's included, for the host to name addresses.
echo NG-PROFILE-SYMS-BEGIN
awk '$2 ~ /^[tT]$/ { print $1, $3 }' /proc/kallsyms
echo NG-PROFILE-SYMS-END

ng_entries() { awk '$1 == "total" { print $2 }' $NG/stats; }
ft_entries() { cat $T/per_cpu/cpu*/stats | awk 'index($0, "entries:") == 1 { s += $NF } END { print s + 0 }'; }

# phase NAME CALLS-COMMAND: the loop alone between the markers; the host
# needs a moment at each (it polls the console).
phase() {
	echo "NG-PROFILE-RESET $1"
	sleep 1
	$NGTEST loop-read /dev/zero "$N" >/dev/null
	echo "NG-PROFILE-DUMP $1"
	sleep 1
}

phase none
c0=0

echo "$FUNCS" >$T/set_ftrace_filter
for t in function function_graph; do
	echo >$T/trace
	echo $t >$T/current_tracer
	phase $t
	c=$(ft_entries)		# before nop, which empties the buffer
	echo nop >$T/current_tracer
	[ $t = function ] || c=$((c / 2))
	echo "NG-PROFILE-CALLS $t $c"
done
echo >$T/set_ftrace_filter
echo >$T/trace

# The raw mode with each of the values' options (bench-guest.sh's
# ng_raw_retval, ng_raw_args: as many registers as the arch has,
# ng_raw_retaddr), where the module has them.
MODES="ng_hook_only ng_raw"
[ ! -e $NG/options/retval ] || MODES="$MODES ng_raw_retval ng_raw_args ng_raw_retaddr"
# The ops path beside the direct one, where the kernel has both.
[ "$(cat $NG/options/direct 2>/dev/null)" != 1 ] || MODES="$MODES ng_raw_ops"
for m in $MODES; do
	c0=$(ng_entries)
	b=events
	[ $m = ng_hook_only ] || b=raw
	echo $b >$NG/buffer_mode || { echo "NG-PROFILE-CALLS $m 0"; continue; }
	case $m in
	ng_raw_retval) echo 1 >$NG/options/retval ;;
	ng_raw_args) echo 6 >$NG/options/args 2>/dev/null || echo 4 >$NG/options/args ;;
	ng_raw_retaddr) echo 1 >$NG/options/retaddr ;;
	ng_raw_ops) echo 0 >$NG/options/direct ;;
	esac
	echo 1 >$NG/tracing_on
	[ $m != ng_hook_only ] || echo 0 >$T/events/nanograph/enable
	phase $m
	ng_stop_and_drain	# buffer_mode is refused until then
	echo "NG-PROFILE-CALLS $m $(($(ng_entries) - c0))"
	for o in retval args retaddr; do echo 0 >$NG/options/$o 2>/dev/null || :; done
	[ $m != ng_raw_ops ] || echo 1 >$NG/options/direct
	echo >$T/trace
done
