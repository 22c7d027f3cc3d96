#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo VM (tools/demo.sh): load the module, show its
# control files, trace a real command.  Everything lands in $1, which
# the host copies out; $1/demo.log is the transcript.
out=$1
exec >"$out/demo.log" 2>&1
set -x
uname -a
insmod /nanograph/nanograph.ko
ls -l /sys/kernel/nanograph /sys/kernel/nanograph/options
cat /sys/kernel/nanograph/clock
cat /sys/kernel/nanograph/stats
nanograph status
# The command to trace: read a file and list a directory.
echo 1 >/sys/kernel/nanograph/tracing_on || echo "demo: this build cannot record yet (the tracer core is issue 3)"
ls -l / >/dev/null
echo 0 >/sys/kernel/nanograph/tracing_on
cp /sys/kernel/nanograph/clock "$out/clock.txt"
cp /sys/kernel/nanograph/stats "$out/stats.txt"
rmmod nanograph
