# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/lines.sh - the tables: architectures, machines, kernel lines.
#
# arch_setup, machine_setup and line_setup turn -a, -m and -k into what the
# other pieces use: DEB FLAVOUR KARCH TRIPLET CROSS (the toolchain and
# Debian's names), QEMU QEMU_ARGS CONSOLE DTB (how the guest boots), TAG
# (the cell's name: build/vm/TAG), FAMILY PREFIX DISTS (where apt finds the
# line's kernel).  Adding a kernel line is adding a line to KERNEL_LINES.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

# Set the per-architecture variables: Debian architecture, kernel flavour,
# kbuild ARCH, cross prefix, GNU triplet and how QEMU boots it.
arch_setup() {
	# shellcheck disable=SC2054 # commas of QEMU's own
	case "$ARCH" in
	x86_64)
		DEB=amd64 FLAVOUR=amd64 KARCH=x86 TRIPLET=x86_64-linux-gnu
		QEMU=qemu-system-x86_64
		# One TCG thread for all vCPUs: x86 live-patches kernel text
		# with INT3 while other CPUs run it (text_poke_bp), and under
		# multi-threaded TCG a vCPU can execute a stale translation of
		# the patched site; 6.1 then dies in an INT3 storm about one
		# function_graph enable in three.  Still 2 vCPUs, same speed.
		QEMU_ARGS=(-M pc -cpu max -accel tcg,thread=single)
		CONSOLE=ttyS0 MACHINES="pc"
		;;
	arm64)
		DEB=arm64 FLAVOUR=arm64 KARCH=arm64 TRIPLET=aarch64-linux-gnu
		QEMU=qemu-system-aarch64
		# Plain "-cpu max" emulates pointer authentication's QARMA
		# cipher slowly (a 6 s boot becomes 85 s); impdef is cheap.
		# One TCG thread, as on x86: arm64 patches a call site in
		# several writes (ftrace's ops literal, then NOP -> BL) without
		# stop_machine(), and under multi-threaded TCG a vCPU that
		# re-translates the site between them keeps the stale NOP: a
		# task pinned in a loop of reads went unrecorded for whole
		# recordings (45, 5 of 20 rounds on 7.2, guest memory showing
		# the BL and the static key on), 0 of 20 with thread=single.
		QEMU_ARGS=(-M virt -cpu max,pauth-impdef=on -accel tcg,thread=single)
		CONSOLE=ttyAMA0 MACHINES="virt"
		;;
	arm)
		DEB=armhf FLAVOUR=armmp KARCH=arm TRIPLET=arm-linux-gnueabihf
		QEMU=qemu-system-arm
		QEMU_ARGS=(-M virt,highmem=off -cpu cortex-a15)
		CONSOLE=ttyAMA0 MACHINES="virt vexpress-a9"
		# armmp is not an LPAE kernel: a GiB is what it maps well.
		[ -n "${NANOGRAPH_VM_MEM:-}" ] || VM_MEM=1024
		;;
	*) die "unknown architecture '$ARCH' (x86_64, arm64, arm)" ;;
	esac
	local host
	host=$(dpkg --print-architecture 2>/dev/null || echo unknown)
	if [ "$host" = "$DEB" ]; then
		CROSS=""
	else
		CROSS="$TRIPLET-"
	fi
}

# A machine other than the architecture's first (default) one: its QEMU
# arguments and device tree.  TAG names the run (output directory, result
# lines): ARCH-LINE, or ARCH-MACHINE-LINE for the extra machines.
machine_setup() {
	local m
	DTB=""
	MACHINE=${MACHINE:-${MACHINES%% *}}
	for m in $MACHINES; do
		[ "$m" = "$MACHINE" ] && break
	done
	[ "$m" = "$MACHINE" ] || die "unknown machine '$MACHINE' for $ARCH ($MACHINES)"
	TAG=$ARCH-$MACHINE-$LINE
	# shellcheck disable=SC2054 # commas of QEMU's own
	case "$ARCH/$MACHINE" in
	arm/vexpress-a9)
		# Versatile Express with a Cortex-A9 tile: the CPU of the
		# BeagleBone-class boards Debian's armmp kernel also runs on,
		# without the generic timer (ID_PFR1.GenTimer = 0).  At most
		# 1 GiB of RAM at 0x60000000; the kernel finds the board in
		# the device tree from the image package.  The PL041 sound
		# device gets the "none" audio backend, quietly.  Two vCPUs,
		# as every cell: the tree lists the tile's four CPUs, and the
		# two QEMU lacks fail to boot (-ENOSYS) and stay possible,
		# never online, as on a board booted with fewer cores.  With
		# four, freeing module memory (every insmod's init sections,
		# every rmmod) took 1.4-4.7 s instead of 0.5-1.1: arm's
		# flush_tlb_kernel_range() invalidates page by page, over
		# ~200k pages from the modules to the vmalloc area, each
		# broadcast TLBI a synchronisation of all vCPUs in QEMU, and
		# four vCPU threads on two host cores made it, now and then,
		# a kworker non-preemptible for over 21 s: an RCU stall.
		QEMU_ARGS=(-M vexpress-a9 -cpu cortex-a9
			-audiodev none,id=snd0 -global pl041.audiodev=snd0)
		DTB=vexpress-v2p-ca9.dtb
		if [ "$VM_MEM" -gt 1024 ]; then
			log "vexpress-a9 takes at most 1024 MiB; using that"
			VM_MEM=1024
		fi
		;;
	*) TAG=$ARCH-$LINE ;;
	esac
}

# The kernel lines: where Debian publishes each, one line each.  FAMILY
# names the private apt state (apt_use); the newest linux-image-<flavour>
# in SUITES is the line's kernel, among versions starting with PREFIX
# where two lines share a family and differ by version ("-": any).
# Adding a kernel to the rig and to make check is adding a line here.
# The line "patched" is not Debian's build but the 6.12 line's source
# with kernel-patches/ (tools/kernel-build.sh; x86_64 and arm64 only),
# with that line's userland; it is listed apart (PATCHED_ARCHES).
#   LINE             FAMILY    PREFIX  SUITES
KERNEL_LINES="
    6.1              bookworm  6.1.    bookworm bookworm-updates bookworm-security
    6.12             bookworm  6.12.   bookworm-backports
    trixie           trixie    -       trixie trixie-updates trixie-security
    trixie-backports trixie    -       trixie-backports
    sid              sid       -       sid
    patched          bookworm  6.12.   bookworm-backports
"
LINES=$(echo "$KERNEL_LINES" | awk 'NF && $1 != "patched" { printf "%s%s", sep, $1; sep = " " }')
PATCHED_ARCHES="x86_64 arm64"
PATCHED_DIR=""

line_setup() {
	local l
	l=$(echo "$KERNEL_LINES" | awk -v l="$LINE" '$1 == l')
	[ -n "$l" ] || die "unknown kernel line '$LINE' ($LINES)"
	# shellcheck disable=SC2086 # one word per field
	set -- $l
	FAMILY=$2 PREFIX=$3
	shift 3
	DISTS="$*"
	[ "$PREFIX" != - ] || PREFIX=""
}

# The suites of FAMILY's lines: one apt state holds them all.
family_suites() {
	echo "$KERNEL_LINES" | awk -v f="$1" '$2 == f { for (i = 4; i <= NF; i++) print $i }' |
		sort -u | tr '\n' ' '
}
