#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo VM (tools/demo.sh): load the module, record a real
# command with "nanograph record", then report and export the recording;
# then a read blocked on a pipe, recorded with --sched, explained.
# Everything lands in $1, which the host copies out; $1/demo.log is the
# transcript.
out=$1
NG=/sys/kernel/nanograph
exec >"$out/demo.log" 2>&1
set -x
uname -a
insmod /nanograph/nanograph.ko
cat $NG/clock
# What a directory listing does in the kernel's file and read paths.
nanograph record -o "$out/ls.data" \
	-F ksys_read -F ksys_write -F iterate_dir -F do_sys_openat2 \
	--hook 'ksys_*' --hook 'vfs_*' --hook 'rw_verify_area' \
	--hook 'security_file_*' --hook '*fsnotify*' --hook 'filemap_read*' \
	--hook 'iterate_dir' --hook 'dcache_readdir' --hook 'do_sys_openat2' \
	--hook 'do_filp_open' --hook 'path_openat' --hook 'link_path_walk*' \
	-- ls -l /nanograph >"$out/ls-output.txt"
cat "$out/ls.data/threads.tsv"
nanograph check "$out"/ls.data/*.txt
nanograph report -n 15 "$out/ls.data"
nanograph export --chrome -o "$out/ls.json" "$out/ls.data"
nanograph export --folded -o "$out/ls.folded" "$out/ls.data"
# Why a call took its time: a read blocked on a pipe until a shell's
# echo, 300 ms later, wrote it (record --sched).
nanograph record --sched -o "$out/pipe.data" \
	--hook 'ksys_read' --hook 'ksys_write' --hook 'vfs_read' --hook 'vfs_write' \
	--hook '*pipe_read' --hook '*pipe_write' \
	-- sh -c '(sleep 0.3; echo woken) | dd bs=64 count=1 2>/dev/null' >"$out/pipe-output.txt"
reader=$(awk -F '\t' '$3 == "dd" { print $1; exit }' "$out/pipe.data/threads.tsv")
nanograph replay --tid "$reader" "$out/pipe.data"
nanograph report -s offcpu -n 6 "$out/pipe.data"
nanograph info "$out/pipe.data" | grep -e '^counts.sched' -e '^counts.wakes'
nanograph export --perfetto -o "$out/pipe.perfetto-trace" "$out/pipe.data"
cat $NG/stats
set +x
tid=$(awk -F '\t' '$3 == "ls" { print $1; exit }' "$out/ls.data/threads.tsv")
echo "demo: the first lines of ls's push/pop file ($tid.txt):"
head -n 25 "$out/ls.data/$tid.txt"
echo "demo: on the host: demo-output/ls.json and demo-output/pipe.perfetto-trace open in https://ui.perfetto.dev, demo-output/ls.data/*.txt in Nanoscope's viewer"
i=0
while ! rmmod nanograph 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
