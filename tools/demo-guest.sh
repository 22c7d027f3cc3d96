#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo VM (tools/demo.sh): load the module, record a real
# command under it, and keep what tracefs shows.  Everything lands in $1,
# which the host copies out; $1/demo.log is the transcript.
out=$1
NG=/sys/kernel/nanograph
T=/sys/kernel/tracing
exec >"$out/demo.log" 2>&1
set -x
uname -a
insmod /nanograph/nanograph.ko
ls -l $NG $NG/options
cat $NG/clock
# Record what a directory listing does inside the kernel's read paths.
echo 'vfs_read vfs_write ksys_* rw_verify_area security_file_permission *fsnotify* shmem_* filemap_read* iterate_dir dcache_readdir' >$NG/set_ftrace_filter
echo 'ksys_read ksys_write iterate_dir' >$NG/set_graph_function
echo >$T/trace
echo 1 >$NG/set_event_pid	# only init (asleep) until the command starts
echo 1 >$NG/tracing_on
sh -c "echo \$\$ >$NG/set_event_pid; exec ls -l /nanograph" >"$out/ls-output.txt"
echo 0 >$NG/tracing_on
cat $NG/stats
nanograph status
cp $T/trace "$out/trace.txt"
cp $NG/clock "$out/clock.txt"
cp $NG/stats "$out/stats.txt"
set +x
echo "demo: $(grep -c 'func_entry:' "$out/trace.txt") calls recorded; the first ones:"
grep 'func_e' "$out/trace.txt" | head -n 20
echo "demo: push/pop files come with the collector's 'nanograph record' (not written yet)"
i=0
while ! rmmod nanograph 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
