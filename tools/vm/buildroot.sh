# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/buildroot.sh - build roots: the compiler a kernel was built
# with, when the host has not.
#
# buildroot_ensure KDIR sets BUILDROOT (empty: the host's compiler will do)
# to a Debian root made once with debootstrap in $CACHE/roots/;
# buildroot_run R CMD... runs a command in it.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

# The major version of the gcc that built the kernel of KDIR.
kernel_gcc() {
	sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9][0-9][0-9][0-9]$/\1/p' "$1/.config"
}

# Set BUILDROOT to where the module for KDIR's kernel is built: empty (the
# host) when the host has that kernel's gcc, else a Debian root that has
# it, made once with debootstrap (minbase) into the cache and reused
# offline.  The suite is the oldest of trixie and sid that ships gcc-N
# (trixie's 6.12 and its backports: gcc-14; sid: its own), so its pahole
# and binutils are those the kernel was built with, or close.  The host's
# apt state is never touched.  Kbuild's host tools of these kernels need
# glibc 2.38, another reason for a root rather than a compiler alone.
buildroot_ensure() {
	local kdir=$1 gcc suite dir mirror pkgs sudo=()
	BUILDROOT=""
	gcc=$(kernel_gcc "$kdir")
	[ -n "$gcc" ] || die "no CONFIG_GCC_VERSION in $kdir/.config"
	command -v "$TRIPLET-gcc-$gcc" >/dev/null && return 0
	for suite in trixie sid; do
		dir=$CACHE/roots/$suite-gcc$gcc
		[ -f "$dir/.complete" ] && { BUILDROOT=$dir; return 0; }
	done
	[ "$OFFLINE" = 1 ] && die "offline and no build root with gcc-$gcc cached"
	for suite in trixie sid; do
		apt_use "$suite" amd64
		apt_cache show "gcc-$gcc" >/dev/null 2>&1 && break
		suite=""
	done
	[ -n "$suite" ] || die "neither trixie nor sid has gcc-$gcc for $KREL"
	command -v debootstrap >/dev/null || die "debootstrap missing: tools/setup-host.sh"
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	dir=$CACHE/roots/$suite-gcc$gcc
	mirror=${NANOGRAPH_MIRROR:-$(host_mirror '/debian/?$')}
	# The compilers for all three architectures, the kernel's BTF tool
	# and checker, and what kbuild's host tools link against.
	pkgs="make,libc6-dev,gcc-$gcc,gcc-$gcc-aarch64-linux-gnu,gcc-$gcc-arm-linux-gnueabihf"
	pkgs="$pkgs,pahole,sparse,libelf1t64,libssl3t64,zlib1g"
	log "making the $suite build root with gcc-$gcc (once; about a minute)"
	mkdir -p "$CACHE/roots"
	"${sudo[@]}" rm -rf "$dir.new"
	"${sudo[@]}" debootstrap --variant=minbase --include="$pkgs" "$suite" "$dir.new" "$mirror" \
		>"$CACHE/roots/$suite-gcc$gcc.log" 2>&1 ||
		{ tail -n 20 "$CACHE/roots/$suite-gcc$gcc.log" >&2; die "debootstrap of $suite failed"; }
	"${sudo[@]}" rm -rf "$dir.new"/var/cache/apt/archives/*.deb "$dir"
	"${sudo[@]}" touch "$dir.new/.complete"
	"${sudo[@]}" mv "$dir.new" "$dir"
	BUILDROOT=$dir
}

# Run a command in build root R, with the cache and the output directory
# (the kernel headers, the module's sources) at the same paths as outside,
# in a mount namespace of its own: nothing stays mounted.
buildroot_run() {
	local r=$1 un=(unshare -m)
	shift
	[ "$(id -u)" = 0 ] || un=(unshare -rm)
	# shellcheck disable=SC2016 # expanded by the inner sh
	"${un[@]}" sh -ec 'r=$1 c=$2 o=$3; shift 3
		mount --rbind /proc "$r/proc"
		for d in "$c" "$o"; do
			mkdir -p "$r$d"
			mount --bind "$d" "$r$d"
		done
		exec chroot "$r" "$@"' sh "$r" "$CACHE" "$OUTBASE" "$@"
}
