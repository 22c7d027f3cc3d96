# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/boot.sh - boot the guest in QEMU.
#
# boot MODE boots $OUTBASE/TAG/initramfs.cpio on the cell's kernel, with the
# selftests' settings on the kernel command line (ngvm.*), into
# $OUTBASE/TAG/console.log (an interactive console for "shell").
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

# Boot the VM.  MODE is "test", "shell", "demo", "bench", "profile" or "soak"; /init reads it
# from the kernel command line.  In test and demo mode the console goes to
# console.log (and to stdout with -v).
boot() {
	local mode=$1 out=$OUTBASE/$TAG vmlinuz append rc=0 dtb=()
	# shellcheck disable=SC2012 # one plain file name
	vmlinuz=$(ls "$KDIR_ROOT"/boot/vmlinuz-* | head -n 1)
	[ -z "$DTB" ] || dtb=(-dtb "$KDIR_ROOT/usr/lib/linux-image-$KREL/$DTB")
	# A soft lockup shows every CPU's backtrace, not only the stuck one's.
	append="console=$CONSOLE panic=-1 loglevel=5 softlockup_all_cpu_backtrace=1"
	append="$append ngvm.mode=$mode"
	[ -z "$TESTS" ] || append="$append ngvm.tests=$TESTS"
	[ -z "${NANOGRAPH_BENCH:-}" ] || append="$append ngvm.bench=$NANOGRAPH_BENCH"
	[ -z "${NANOGRAPH_PROFILE:-}" ] || append="$append ngvm.profile=$NANOGRAPH_PROFILE"
	[ -z "${NANOGRAPH_SEED:-}" ] || append="$append ngvm.seed=$NANOGRAPH_SEED"
	[ -z "${NANOGRAPH_SCOPE:-}" ] || append="$append ngvm.scope=$NANOGRAPH_SCOPE"
	# Which tests run at their full size (lib.sh ng_full): make check
	# names the rotation's, NN,NN...; by default every test.
	[ -z "${NANOGRAPH_FULL:-}" ] || append="$append ngvm.full=$NANOGRAPH_FULL"
	local p
	for p in ${NANOGRAPH_PARAMS:-}; do append="$append ngvm.$p"; done
	[ -z "${NANOGRAPH_SOAK_MINUTES:-}" ] || append="$append ngvm.soak=$NANOGRAPH_SOAK_MINUTES"
	[ -z "${NANOGRAPH_KARGS:-}" ] || append="$append $NANOGRAPH_KARGS"
	local timeout=${VM_TIMEOUT:-1800}
	if ftracetest_wanted; then
		append="$append ngvm.ftracetest=1"
		timeout=${VM_TIMEOUT:-2400}
	fi
	local cmd=("$QEMU" "${QEMU_ARGS[@]}" -m "$VM_MEM" -smp "$VM_SMP"
		-nographic -no-reboot -kernel "$vmlinuz" "${dtb[@]}"
		-initrd "$out/initramfs.cpio" -append "$append")
	# shellcheck disable=SC2206 # extra QEMU words, split as given
	[ -z "${NANOGRAPH_QEMU_EXTRA:-}" ] || cmd+=(${NANOGRAPH_QEMU_EXTRA})
	if [ "$mode" = shell ]; then
		"${cmd[@]}"
		return
	fi
	log "booting $ARCH $KREL on $MACHINE (log: $out/console.log)"
	if [ "$VERBOSE" = 1 ]; then
		timeout --foreground "$timeout" "${cmd[@]}" </dev/null 2>&1 |
			tee "$out/console.log" || rc=$?
	else
		timeout "$timeout" "${cmd[@]}" </dev/null >"$out/console.log" 2>&1 || rc=$?
	fi
	[ "$rc" = 124 ] && log "boot timed out after ${timeout}s"
	return 0
}
