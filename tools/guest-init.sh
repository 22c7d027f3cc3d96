#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test VM (packed by tools/vmtest.sh).  Mounts the kernel
# filesystems, then by "ngvm.mode=" on the kernel command line:
#   test   run the selftests, print KTAP between markers
#   demo   run the demo script, print its output as a base64 tar
#   bench  run the benchmark script, print its lines between markers
#   profile  run the profile script (tools/profile.sh watches its markers)
#   soak   run the soak test (selftests/vm/soak), KTAP between the markers
#   shell  an interactive shell on the console
# and prints the kernel log between markers before powering off.

/bin/busybox --install -s /bin
export PATH=/nanograph:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
hostname nanograph-vm
# Loopback up: ftracetest's cases ping 127.0.0.1 (its yield(), and the
# inter-event histogram cases wait for ping's wakeups).
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null

arg() {
	sed -n "s/.*ngvm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline
}

mode=$(arg mode)
echo "nanograph-vm: $(uname -r) $(uname -m), $(nproc) CPUs, mode ${mode:-shell}"

case "$mode" in
test)
	/nanograph/selftests/run.sh "$(arg tests)" >/tmp/results.ktap 2>/tmp/results.err
	echo NANOGRAPH-KTAP-BEGIN
	cat /tmp/results.ktap
	echo NANOGRAPH-KTAP-END
	# Test 34's table of ftracetest cases without and with nanograph
	# (the host keeps it as ftracetest.txt), and the baseline if it grew
	# (it ran cases the cached one lacked): the host keeps it for the
	# next boots.
	if [ -s /tmp/ftracetest.txt ]; then
		echo NANOGRAPH-FTRACETEST-BEGIN
		cat /tmp/ftracetest.txt
		echo NANOGRAPH-FTRACETEST-END
	fi
	if [ -s /tmp/ftracetest.base ]; then
		echo NANOGRAPH-FTBASE-BEGIN
		cat /tmp/ftracetest.base
		echo NANOGRAPH-FTBASE-END
	fi
	;;
soak)
	NG_TESTS_DIR=soak /nanograph/selftests/run.sh "$(arg tests)" >/tmp/results.ktap 2>/tmp/results.err
	echo NANOGRAPH-KTAP-BEGIN
	cat /tmp/results.ktap
	echo NANOGRAPH-KTAP-END
	;;
bench)
	b=$(arg bench)
	echo NANOGRAPH-BENCH-BEGIN
	# shellcheck disable=SC2046 # ITER:ROUNDS:FORKS, one argument each
	/nanograph/bench-guest.sh $(echo "$b" | tr : ' ') 2>&1
	echo NANOGRAPH-BENCH-END
	;;
profile)
	echo NANOGRAPH-PROFILE-BEGIN
	/nanograph/profile-guest.sh "$(arg profile)" 2>&1
	echo NANOGRAPH-PROFILE-END
	;;
demo)
	mkdir -p /tmp/demo
	/nanograph/demo-guest.sh /tmp/demo 2>&1
	echo NANOGRAPH-DEMO-BEGIN
	tar -C /tmp/demo -cf - . | base64
	echo NANOGRAPH-DEMO-END
	;;
*)
	echo "nanograph-vm: the module is /nanograph/nanograph.ko; 'reboot -f' leaves"
	setsid cttyhack sh -l
	;;
esac

# The whole kernel log, for the host to keep next to the console log.
echo NANOGRAPH-DMESG-BEGIN
dmesg
echo NANOGRAPH-DMESG-END
sync
reboot -f
