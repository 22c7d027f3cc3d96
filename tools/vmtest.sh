#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest.sh - build nanograph for a stock Debian kernel and test it in QEMU.
#
# One script, idempotent, cached (in the spirit of the kernel's
# tools/testing/selftests/bpf/vmtest.sh).  For one architecture and one
# kernel line it:
#   1. resolves Debian's current kernel build of that line through a private
#      apt configuration (the host's apt state is never touched), downloads
#      image, headers and kbuild packages and unpacks them with dpkg -x;
#   2. downloads busybox-static, trace-cmd and the libraries the collector
#      links against for that architecture, likewise unpacked;
#   3. builds the module against the unpacked headers (inside a cached
#      Debian build root when the kernel was built by a newer gcc than the
#      host's) and cross-builds the collector and the in-VM test helper;
#   4. packs an initramfs and boots it in QEMU; /init runs selftests/vm and
#      prints KTAP between markers;
#   5. reads the KTAP back, and fails the run on any kernel splat in the
#      console log.
#
# See Documentation/testing.md.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${NANOGRAPH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nanograph}
OUTBASE=${NANOGRAPH_OUT:-$ROOT/build/vm}
OFFLINE=${NANOGRAPH_OFFLINE:-0}
VM_TIMEOUT=${NANOGRAPH_VM_TIMEOUT:-}
# Cells that run test 34, the kernel's ftracetest with and without
# nanograph (minutes under emulation): "all", "none" or arch:line words.
FTRACETEST_CELLS=${NANOGRAPH_FTRACETEST:-x86_64:6.1 x86_64:patched}
# 2 GiB: 33-many-tasks runs 20,000 threads (1 GiB on 32-bit arm).
VM_MEM=${NANOGRAPH_VM_MEM:-2048}
VM_SMP=${NANOGRAPH_VM_SMP:-2}
# Refresh the package lists at most this often (seconds) unless -u.
LISTS_MAX_AGE=${NANOGRAPH_LISTS_MAX_AGE:-21600}

ARCH=x86_64
LINE=6.1
MACHINE=""
VERBOSE=0
FORCE_UPDATE=0
SHELL_MODE=0
TESTS=""

usage() {
	cat <<EOF
Usage: $0 [options] <command>

Commands:
  fetch      download and unpack the kernel and userland for ARCH/LINE
  build      fetch, then build the module, the collector and the initramfs
  run        build, boot, run selftests/vm, check the console (the default)
  shell      build and boot into an interactive shell in the VM
  demo       build and boot, run tools/demo-guest.sh, copy its output out
  bench      build and boot, run tools/bench-guest.sh (NANOGRAPH_BENCH=ITER:ROUNDS)
  profile    build and boot, run tools/profile-guest.sh (NANOGRAPH_PROFILE=
             READS); tools/profile.sh drives it
  soak       build and boot, run the soak test selftests/vm/soak (for
             NANOGRAPH_SOAK_MINUTES, default 10), check the console
  resolve    print the resolved kernel package version and exit
  source     unpack checkpatch and the ftrace sources of LINE; print where
  headers    fetch the kernel; print its headers (KDIR) directory
  list       print the supported architectures and kernel lines

Options:
  -a ARCH    x86_64 (default), arm64 or arm
  -k LINE    kernel line (KERNEL_LINES, "list"): 6.1 (bookworm, the
             default), 6.12 (bookworm-backports), trixie (trixie's 6.12),
             trixie-backports or sid (their newest); patched (x86_64,
             arm64: 6.12 with kernel-patches/, tools/kernel-build.sh)
  -m MACHINE the QEMU machine, if ARCH has more than one (see "list"):
             arm: virt (default; Cortex-A15) or vexpress-a9 (Cortex-A9, no
             generic timer).  Results go to build/vm/ARCH-MACHINE-LINE.
  -t GLOB    run only the selftests whose file name matches GLOB
  -u         refresh the package lists now
  -v         show QEMU's console on stdout while it runs
  -h         this help

Environment:
  NANOGRAPH_CACHE      cache directory (default: ~/.cache/nanograph)
  NANOGRAPH_OUT        build/output directory (default: <repo>/build/vm)
  NANOGRAPH_OFFLINE=1  never touch the network; use what the cache has
  NANOGRAPH_MIRROR     Debian archive URI (default: taken from the host's
                       apt sources)
  NANOGRAPH_VM_TIMEOUT seconds before a boot is killed (default: 1800, 2400
                       where test 34 runs ftracetest)
  NANOGRAPH_VM_MEM     guest memory in MiB (default: $VM_MEM)
  NANOGRAPH_VM_SMP     guest CPUs (default: $VM_SMP)
  NANOGRAPH_QEMU_EXTRA more QEMU arguments, split at spaces (a monitor
                       socket for tools/profile.sh, say)
  NANOGRAPH_KARGS      more words for the guest kernel's command line
                       (watchdog_thresh=3, say, to report shorter stalls)
  NANOGRAPH_SEED       seed of the randomised selftests (28-fuzz), to replay
                       a run; each run prints the seed it used
  NANOGRAPH_FULL=NN,...   run only these tests at their full size (ng_full;
                       default all; make check names the rotation's)
  NANOGRAPH_SCOPE=kernel  skip the tests marked "# scope: arch" (make check
                       runs those in one cell per architecture)
  NANOGRAPH_PARAMS     "NAME=VALUE ..." knobs of the selftests (ngvm.NAME=
                       on the kernel command line), e.g. "cycles=20
                       tasks=5000"; see Documentation/testing.md
  NANOGRAPH_FTRACETEST cells whose boot runs test 34, the kernel's ftrace
                       selftests without and with nanograph: "all", "none"
                       or arch:line words (default: x86_64:6.1
                       x86_64:patched); a -t GLOB
                       that matches 34-ftracetest runs it in any cell
EOF
}

die() { echo "vmtest: error: $*" >&2; exit 1; }
log() { echo "vmtest: $*" >&2; }

# -------------------------------------------------------------------------
# Architecture and kernel-line tables
# -------------------------------------------------------------------------

# Set the per-architecture variables: Debian architecture, kernel flavour,
# kbuild ARCH, cross prefix, GNU triplet and how QEMU boots it.
arch_setup() {
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

# -------------------------------------------------------------------------
# Private apt configuration: package lists for amd64, arm64 and armhf
# -------------------------------------------------------------------------

APTDIR=$CACHE/apt
APT_FAMILY=""

# Find the Debian archive the host already uses, so that no mirror is
# hard-coded here.  deb822 .sources files first, then one-line lists.
host_mirror() {
	local pattern=$1 uri
	uri=$( (cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; break } }'
		) | grep -E "$pattern" | head -n 1)
	echo "${uri%/}"
}

# Write a private apt configuration in APTDIR for the suites of FAMILY and
# the architectures ARCHS.  The host's apt.conf.d is still read (proxies,
# validity settings), but sources, lists, cache and dpkg status are ours.
apt_setup() {
	local family=$1 archs=$2 mirror security keyring suites
	suites=$(family_suites "$family")
	mkdir -p "$APTDIR"/{state/lists/partial,cache/archives/partial,sources.list.d,preferences.d}
	touch "$APTDIR/status"
	mirror=${NANOGRAPH_MIRROR:-$(host_mirror '/debian/?$')}
	security=${NANOGRAPH_SECURITY_MIRROR:-$(host_mirror '/debian-security/?$')}
	[ -n "$mirror" ] || die "no Debian archive in the host's apt sources; set NANOGRAPH_MIRROR"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$keyring" ] || die "$keyring missing: apt-get install debian-archive-keyring"
	{
		local s opts="[arch=${archs// /,} signed-by=$keyring]"
		for s in $suites; do
			case "$s" in
			*-security) [ -z "$security" ] || echo "deb $opts $security $s main" ;;
			*) echo "deb $opts $mirror $s main" ;;
			esac
		done
	} >"$APTDIR/sources.list.new.$$"
	mv "$APTDIR/sources.list.new.$$" "$APTDIR/sources.list"
	cat >"$APTDIR/apt.conf" <<EOF
Dir::Etc::sourcelist "$APTDIR/sources.list";
Dir::Etc::sourceparts "$APTDIR/sources.list.d";
Dir::Etc::preferences "$APTDIR/preferences";
Dir::Etc::preferencesparts "$APTDIR/preferences.d";
Dir::State "$APTDIR/state";
Dir::Cache "$APTDIR/cache";
Dir::State::status "$APTDIR/status";
APT::Architecture "${archs%% *}";
APT::Architectures { $(for a in $archs; do printf '"%s"; ' "$a"; done)};
Acquire::Languages "none";
APT::Sandbox::User "root";
EOF
	export APT_CONFIG=$APTDIR/apt.conf
}

# Switch to the private apt state of FAMILY, made and refreshed on first
# use.  bookworm (the guest userland and the first two lines) has one state
# for all three architectures, as ever; trixie and sid have one per
# architecture ARCH: a mirror serving one architecture's index mid-sync
# makes apt drop the whole suite's lists, the other architectures' too.
apt_use() {
	local family=$1 arch=${2:-} key
	key=$family${arch:+-$arch}
	[ "$APT_FAMILY" = "$key" ] && return 0
	if [ "$family" = bookworm ]; then
		APTDIR=$CACHE/apt
		apt_setup bookworm "amd64 arm64 armhf"
	else
		APTDIR=$CACHE/apt-$key
		apt_setup "$family" "$arch"
	fi
	APT_FAMILY=$key
	apt_cache_opts
	apt_update
}

# apt with the binary caches kept: some hosts' apt.conf.d (Docker images)
# empty Dir::Cache::pkgcache, which makes every apt-cache call rebuild it
# from all lists; command-line options win over configuration files.
APT_CACHE_OPTS=()
apt_cache_opts() {
	APT_CACHE_OPTS=(-o "Dir::Cache::pkgcache=$APTDIR/cache/pkgcache.bin"
		-o "Dir::Cache::srcpkgcache=$APTDIR/cache/srcpkgcache.bin")
}
apt_get() { apt-get "${APT_CACHE_OPTS[@]}" "$@"; }
apt_cache() { apt-cache "${APT_CACHE_OPTS[@]}" "$@"; }

# Refresh the lists when they are missing, old, or -u was given.  A suite
# or architecture failing while a mirror syncs is tolerated: what it had
# before is used.
apt_update() {
	local stamp=$APTDIR/updated now age
	[ "$OFFLINE" = 1 ] && return 0
	now=$(date +%s)
	if [ -f "$stamp" ] && [ "$FORCE_UPDATE" = 0 ]; then
		age=$((now - $(stat -c %Y "$stamp")))
		[ "$age" -lt "$LISTS_MAX_AGE" ] && return 0
	fi
	log "refreshing package lists"
	if ! apt_get -q update >"$APTDIR/update.log" 2>&1; then
		log "apt-get update reported errors (see $APTDIR/update.log); continuing"
	fi
	touch "$stamp"
}

# Highest version of PKG (given as name:arch) whose version starts with
# PREFIX, or empty.
apt_version() {
	local pkg=$1 prefix=$2
	apt_cache show "$pkg" 2>/dev/null |
		awk '/^Version:/ { print $2 }' |
		grep -E "^${prefix//./\\.}" |
		sort -V | tail -n 1
}

# Highest version of PKG published in one of the suites DISTS, or empty.
apt_suite_version() {
	local pkg=$1 dists=$2
	apt_cache madison "$pkg" 2>/dev/null |
		awk -F'|' -v dists=" $dists " '{
			n = split($3, w, " ")
			for (i = 1; i <= n; i++)
				if (w[i] ~ /\/main$/) { sub(/\/main$/, "", w[i]); break }
			gsub(/ /, "", $2)
			if (index(dists, " " w[i] " ")) print $2
		}' | sort -V | tail -n 1
}

# Download PKG:ARCH=VERSION into the shared .deb cache unless present, and
# print the path of the .deb.
apt_fetch() {
	local pkg=$1 arch=$2 ver=$3 file
	mkdir -p "$CACHE/debs"
	# Debian file names encode the epoch's colon as %3a.
	file=$CACHE/debs/${pkg}_${ver/:/%3a}_$arch.deb
	# "pkg:ARCH" also names an Architecture: all package (libdrm-common),
	# whose file says _all.
	[ -s "$file" ] || [ ! -s "${file%_"$arch".deb}_all.deb" ] || file=${file%_"$arch".deb}_all.deb
	if [ ! -s "$file" ]; then
		[ "$OFFLINE" = 1 ] && die "offline and $pkg:$arch=$ver is not cached"
		(cd "$CACHE/debs" && apt_get -q download "$pkg:$arch=$ver" >/dev/null) ||
			die "could not download $pkg:$arch=$ver"
		[ -s "$file" ] || [ ! -s "${file%_"$arch".deb}_all.deb" ] || file=${file%_"$arch".deb}_all.deb
		[ -s "$file" ] || die "downloaded $pkg but $file is missing"
	fi
	echo "$file"
}

# Candidate version of a binary package for one architecture.
apt_candidate() {
	apt_cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'
}

# -------------------------------------------------------------------------
# Kernel: resolve, download, unpack
# -------------------------------------------------------------------------

# Resolve the metapackage of the line to the concrete image package and its
# version.  The ABI number moves, so this is never hard-coded; the result
# is remembered for offline use.
kernel_resolve() {
	local memo=$CACHE/kernels/$ARCH-$LINE.resolved meta ver dep
	mkdir -p "$CACHE/kernels"
	if [ "$OFFLINE" != 1 ]; then
		apt_use "$FAMILY" "$DEB"
		meta=linux-image-$FLAVOUR:$DEB
		if [ -n "$PREFIX" ]; then
			ver=$(apt_version "$meta" "$PREFIX")
		else
			ver=$(apt_suite_version "$meta" "$DISTS")
		fi
		if [ -n "$ver" ]; then
			# The image of that build: linux-image-<abi>-<flavour>,
			# the first such Depends (7.x lists linux-base-* first).
			dep=$(apt_cache show "$meta=$ver" 2>/dev/null |
				awk '/^Depends:/ { sub(/^Depends:/, ""); print; exit }' |
				tr ',' '\n' |
				sed -n 's/^[ ]*\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n 1)
			if [ -n "$dep" ]; then
				echo "KVER=$ver" >"$memo.new.$$"
				echo "KREL=${dep#linux-image-}" >>"$memo.new.$$"
				mv "$memo.new.$$" "$memo"
			fi
		fi
	fi
	[ -f "$memo" ] || die "cannot resolve the $LINE kernel for $DEB (offline, or the archive has none)"
	# shellcheck disable=SC1090
	. "$memo"
	KDIR_ROOT=$CACHE/kernels/$DEB/$KREL
	# The upstream line of the build (7.2 of 7.2.13-1): linux-source-*.
	KLINE=$(echo "$KVER" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
	[ "$LINE" != patched ] || patched_resolve
}

# The patched line: the 6.12 line's Debian source with kernel-patches/,
# built by tools/kernel-build.sh into PATCHED_DIR (main).  KREL is its
# release (LOCALVERSION -nanograph), KVER the Debian version plus the
# build's key (the ftracetest baseline is cached by both), and KDIR_ROOT
# gets the layout of an unpacked Debian kernel (patched_fetch).
patched_resolve() {
	local rel=$PATCHED_DIR/build/include/config/kernel.release

	# The source's version, not the 6.12 line's image (kernel-build.sh
	# takes the newer trixie source); the line's own until it is built.
	KREL=${KVER%%-*}-nanograph
	[ ! -f "$rel" ] || KREL=$(cat "$rel")
	KVER=${KREL%-nanograph}+nanograph.${PATCHED_DIR##*-}
	KDIR_ROOT=$PATCHED_DIR/root
}

patched_fetch() {
	local rel
	[ -f "$PATCHED_DIR/.complete" ] || die "the patched kernel is not built ($PATCHED_DIR)"
	rel=$(cat "$PATCHED_DIR/build/include/config/kernel.release")
	[ "$rel" = "$KREL" ] || die "the patched kernel is $rel, not $KREL"
	mkdir -p "$KDIR_ROOT/boot" "$KDIR_ROOT/usr/src"
	ln -sfn ../../vmlinuz "$KDIR_ROOT/boot/vmlinuz-$KREL"
	ln -sfn ../../../build "$KDIR_ROOT/usr/src/linux-headers-$KREL"
}

# The headers package depends on a kbuild package (scripts and host tools);
# those must be built for the host, not the target, so take the host's
# architecture at the same version, or the newest of the line.
kbuild_package() {
	local hdr=$1
	apt_cache show "$hdr:$DEB=$KVER" 2>/dev/null |
		awk '/^Depends:/ { print; exit }' | tr ',' '\n' |
		sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' | head -n 1
}

kernel_fetch() {
	local root=$KDIR_ROOT hdr common kbuild kbver hostarch f bin
	if [ "$LINE" = patched ]; then
		patched_fetch
		return 0
	fi
	if [ -f "$root/.complete" ]; then
		kernel_dtbs
		return 0
	fi
	[ "$OFFLINE" = 1 ] && die "offline and kernel $KREL is not cached"
	apt_use "$FAMILY" "$DEB"
	log "fetching kernel $KREL ($KVER) for $DEB"
	hostarch=$(dpkg --print-architecture)
	hdr=linux-headers-$KREL
	common=linux-headers-${KREL%-"$FLAVOUR"}-common
	kbuild=$(kbuild_package "$hdr")
	[ -n "$kbuild" ] || die "no kbuild dependency found for $hdr"
	rm -rf "$root"
	mkdir -p "$root/boot"
	# Only the kernel image is needed (and the device trees some
	# machines boot with, kernel_dtbs): the VM runs from an initramfs
	# without the distribution's modules.  Up to 6.12 it is /boot of
	# linux-image-KREL; from 7.0 that is a metapackage and the image is
	# usr/lib/modules/KREL/vmlinuz of linux-binary-KREL.
	f=$(apt_fetch "linux-image-$KREL" "$DEB" "$(pkg_version "linux-image-$KREL")")
	dpkg-deb --fsys-tarfile "$f" 2>/dev/null | tar -x -C "$root" ./boot 2>/dev/null || true
	if ! ls "$root"/boot/vmlinuz-* >/dev/null 2>&1; then
		bin=linux-binary-$KREL
		f=$(apt_fetch "$bin" "$DEB" "$(pkg_version "$bin")")
		dpkg-deb --fsys-tarfile "$f" |
			tar -xO "./usr/lib/modules/$KREL/vmlinuz" >"$root/boot/vmlinuz-$KREL" 2>/dev/null || :
		[ -s "$root/boot/vmlinuz-$KREL" ] || die "no vmlinuz in linux-image-$KREL nor in $bin"
	fi
	kernel_dtbs
	for f in "$(apt_fetch "$hdr" "$DEB" "$(pkg_version "$hdr")")" \
		 "$(apt_fetch "$common" all "$(pkg_version "$common")")"; do
		dpkg -x "$f" "$root"
	done
	# The kbuild package (scripts and host tools) must be built for the
	# host, not the target: take the host's architecture at the same
	# version, or the newest of the line.
	[ "$FAMILY" = bookworm ] || apt_use "$FAMILY" "$hostarch"
	kbver=$KVER
	if ! apt_cache show "$kbuild:$hostarch=$kbver" >/dev/null 2>&1; then
		# The host architecture moved on to a newer build of the line.
		kbuild=$(apt_cache pkgnames "linux-kbuild-$KLINE" | sort -V | tail -n 1)
		kbver=$(apt_candidate "$kbuild:$hostarch")
		log "no $hostarch kbuild at $KVER; using $kbuild $kbver"
	fi
	dpkg -x "$(apt_fetch "$kbuild" "$hostarch" "$kbver")" "$root"
	# Debian's headers Makefile includes the -common tree by absolute
	# path (and from 7.0 sets KBUILD_OUTPUT to its own); point both into
	# the unpacked copy.
	sed -i -e "s|^include /usr/src/|include $root/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$root/usr/src/|" \
		"$root/usr/src/linux-headers-$KREL/Makefile"
	touch "$root/.complete"
}

# From 6.15 kbuild runs C=1 only if scripts/checker-valid.sh says sparse
# knows __typeof_unqual__, and Debian's headers do not ship that script:
# C=1 silently does nothing.  Give the unpacked headers a script of ours
# that answers the same question.
checker_valid() {
	local common=$1
	grep -q 'checker-valid.sh' "$common/Makefile" 2>/dev/null || return 0
	[ -e "$common/scripts/checker-valid.sh" ] && return 0
	mkdir -p "$common/scripts"
	cat >"$common/scripts/checker-valid.sh" <<'EOF2'
#!/bin/sh
# Written by nanograph's tools/vmtest.sh: prints 1 if the checker "$@"
# parses __typeof_unqual__ (sparse exits 0 even on errors), else 0.
t=$(mktemp) || exit 1
trap 'rm -f "$t"' EXIT
printf 'int f(const int *p)\n{\n\t__typeof_unqual__(p) q = p;\n\treturn *q;\n}\n' >"$t"
"$@" "$t" 2>&1 | grep -q error && echo 0 || echo 1
EOF2
	chmod 755 "$common/scripts/checker-valid.sh"
}

# sid's sparse, unpacked once into the cache, for headers that the build
# root's sparse cannot parse (6.15+ use __typeof_unqual__; trixie has
# 0.6.4).  The binary needs only glibc 2.38 or later, which the roots
# have; its package's other dependencies (gcc-16, for cgcc) are not used.
# Prints the binary's path.
newer_sparse() {
	local dir=$CACHE/tools/sparse-sid host deb
	if [ ! -x "$dir/usr/bin/sparse" ]; then
		[ "$OFFLINE" = 1 ] && return 1
		host=$(dpkg --print-architecture)
		deb=$(apt_use sid "$host" >&2 &&
			apt_fetch sparse "$host" "$(apt_candidate "sparse:$host")") || return 1
		rm -rf "$dir.new"
		mkdir -p "$dir.new"
		dpkg-deb -x "$deb" "$dir.new" && rm -rf "$dir" && mv "$dir.new" "$dir" || return 1
	fi
	echo "$dir/usr/bin/sparse"
}

# The version of binary package PKG (of $DEB) in the current apt state:
# the one the resolved metapackage's build has.  Packages of one build
# share the source version; a signed image may not, hence the lookup.
pkg_version() {
	local v
	v=$(apt_cache show "$1:$DEB=$KVER" >/dev/null 2>&1 && echo "$KVER")
	[ -n "$v" ] || v=$(apt_candidate "$1:$DEB")
	[ -n "$v" ] && [ "$v" != "(none)" ] || v=$(apt_candidate "$1")
	echo "$v"
}

# The device tree the machine boots with ($DTB; the default machines need
# none), from the image package (up to 6.12: usr/lib/linux-image-KREL/) or
# from 7.0 on linux-base-KREL, into usr/lib/linux-image-KREL/ under the
# unpacked kernel.  Also run on a cache unpacked before a machine needed
# one: the .deb is cached or fetched then.  Written under a temporary name
# and renamed, for concurrent runs.
kernel_dtbs() {
	local d=$KDIR_ROOT/usr/lib/linux-image-$KREL pkg f m
	[ -n "$DTB" ] && [ ! -s "$d/$DTB" ] || return 0
	[ "$OFFLINE" = 1 ] && die "offline and $DTB of $KREL is not cached"
	apt_use "$FAMILY" "$DEB"
	mkdir -p "$d"
	for pkg in "linux-image-$KREL" "linux-base-$KREL"; do
		f=$(apt_fetch "$pkg" "$DEB" "$(pkg_version "$pkg")" 2>/dev/null) || continue
		# awk reads the whole listing: leaving early would kill
		# dpkg-deb with SIGPIPE, which pipefail makes this run's end.
		m=$(dpkg-deb -c "$f" | awk -v t="/$DTB" '{ p = $NF } !m && substr(p, length(p) - length(t) + 1) == t { m = p } END { if (m) print m }')
		[ -n "$m" ] || continue
		dpkg-deb --fsys-tarfile "$f" | tar -xO "$m" >"$d/$DTB.new.$$"
		[ -s "$d/$DTB.new.$$" ] && mv "$d/$DTB.new.$$" "$d/$DTB" && return 0
	done
	rm -f "$d/$DTB.new.$$"
	die "no $DTB for $KREL"
}

# -------------------------------------------------------------------------
# Userland for the guest: busybox, trace-cmd, stress-ng, the collector's
# libraries
# -------------------------------------------------------------------------

# Runtime packages go into the initramfs; -dev packages only into the
# sysroot the collector is cross-built against.
# stress-ng: test 54, a load nobody here wrote (about 35 MB with its
# libraries on amd64).
USERLAND_RT="busybox-static trace-cmd libtracefs1 libtraceevent1 libtracecmd1 libbpf1 stress-ng"
USERLAND_DEV="libtracefs-dev libtraceevent-dev libtracecmd-dev libbpf-dev"

# Runtime closure of the guest packages for $DEB: recursive Depends and
# Pre-Depends, real packages only, of this architecture or "all".
userland_closure() {
	local p
	apt_cache depends --recurse --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances \
		$(for p in $USERLAND_RT; do echo "$p:$DEB"; done) 2>/dev/null |
		grep -v '^ ' | grep -v '^<' | sed "s/:$DEB\$//" | sort -u
}

userland_fetch() {
	local dir=$CACHE/userland/$DEB manifest pkg ver arch f
	# One guest userland per architecture, bookworm's, whatever the
	# kernel: the collector and the tests do not depend on it.
	apt_use bookworm
	manifest=$dir/manifest
	mkdir -p "$dir"
	if [ "$OFFLINE" = 1 ]; then
		[ -f "$dir/.complete" ] || die "offline and no userland cached for $DEB"
		return 0
	fi
	# Resolved since the lists were last refreshed, for the same
	# packages: nothing can have moved.
	if [ -f "$dir/.complete" ] && [ "$manifest" -nt "$APTDIR/updated" ] &&
		[ "$(cat "$dir/wanted" 2>/dev/null)" = "$USERLAND_RT / $USERLAND_DEV" ]; then
		return 0
	fi
	# Resolve the closure to name=version pairs; unpack again only when
	# that list changed.
	{
		for pkg in $(userland_closure); do
			ver=$(apt_candidate "$pkg:$DEB")
			arch=$DEB
			if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
				ver=$(apt_candidate "$pkg")
				arch=all
			fi
			[ -n "$ver" ] && [ "$ver" != "(none)" ] && echo "rt $pkg $arch $ver"
		done
		for pkg in $USERLAND_DEV; do
			echo "dev $pkg $DEB $(apt_candidate "$pkg:$DEB")"
		done
	} >"$manifest.new.$$"
	if [ -f "$dir/.complete" ] && cmp -s "$manifest.new.$$" "$manifest"; then
		mv "$manifest.new.$$" "$manifest"	# newer than the lists now
		echo "$USERLAND_RT / $USERLAND_DEV" >"$dir/wanted"
		return 0
	fi
	log "fetching guest userland for $DEB"
	rm -rf "$dir/rt" "$dir/sysroot" "$dir/.complete"
	mkdir -p "$dir/rt" "$dir/sysroot"
	while read -r kind pkg arch ver; do
		f=$(apt_fetch "$pkg" "$arch" "$ver")
		dpkg -x "$f" "$dir/sysroot"
		[ "$kind" = rt ] && dpkg -x "$f" "$dir/rt"
	done <"$manifest.new.$$"
	mv "$manifest.new.$$" "$manifest"
	echo "$USERLAND_RT / $USERLAND_DEV" >"$dir/wanted"
	touch "$dir/.complete"
}

# -------------------------------------------------------------------------
# Kernel sources: checkpatch and the ftrace reference, from linux-source
# -------------------------------------------------------------------------

# Paths of the linux-source tarball worth keeping: checkpatch and its data
# files, the ftrace code and selftests this project is modelled on, and
# the stack walkers and their users that see the return trampoline
# (Documentation/stack-traces.md).
SOURCE_PATHS="scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
kernel/trace include/linux/ftrace.h include/linux/trace_recursion.h
arch/x86/kernel/ftrace.c arch/x86/kernel/ftrace_64.S arch/x86/include/asm/ftrace.h
arch/arm64/kernel/ftrace.c arch/arm64/kernel/entry-ftrace.S arch/arm64/include/asm/ftrace.h
arch/arm/kernel/ftrace.c arch/arm/kernel/entry-ftrace.S arch/arm/include/asm/ftrace.h
tools/testing/selftests/ftrace
arch/x86/kernel/unwind_orc.c arch/x86/kernel/stacktrace.c arch/x86/kernel/dumpstack.c
arch/x86/include/asm/unwind.h arch/x86/include/asm/stacktrace.h arch/x86/events/core.c
arch/arm64/kernel/stacktrace.c arch/arm64/kernel/perf_callchain.c arch/arm64/kernel/process.c
arch/arm64/include/asm/stacktrace.h arch/arm64/include/asm/stacktrace
arch/arm/kernel/unwind.c arch/arm/kernel/stacktrace.c arch/arm/kernel/traps.c
arch/arm/kernel/perf_callchain.c arch/arm/kernel/process.c arch/arm/include/asm/stacktrace.h
kernel/livepatch kernel/events/callchain.c kernel/bpf/stackmap.c kernel/stacktrace.c
kernel/locking/lockdep.c kernel/sched/core.c kernel/kprobes.c fs/proc/base.c
drivers/tty/sysrq.c lib/dump_stack.c mm/kmemleak.c include/linux/stacktrace.h
include/linux/instruction_pointer.h include/linux/livepatch.h
arch/x86/kernel/process.c include/linux/perf_event.h arch/x86/include/asm/perf_event.h
arch/arm64/include/asm/perf_event.h arch/arm/include/asm/perf_event.h
kernel/entry/common.c include/linux/entry-common.h kernel/sched/idle.c
include/trace/events/kmem.h mm/slab_common.c mm/slub.c"

# Unpack those paths of linux-source-$LINE into the cache; print the dir.
# Paths added to the list later are unpacked into a complete dir on the
# next call (a path the line's tarball lacks is not an error).
source_fetch() {
	local pkg=linux-source-$KLINE ver dir f p err wild=()
	apt_use "$FAMILY" "$DEB"
	ver=$(apt_version "$pkg" "$KLINE.")
	[ -n "$ver" ] || ver=$(ls -d "$CACHE/src/$KLINE-"*/.complete 2>/dev/null | sed "s|.*/$KLINE-||; s|/.complete$||" | sort -V | tail -n 1)
	[ -n "$ver" ] || die "cannot resolve $pkg"
	dir=$CACHE/src/$KLINE-$ver
	if [ -f "$dir/.complete" ]; then
		for p in $SOURCE_PATHS; do
			[ -e "$dir/$p" ] || grep -qxF "$p" "$dir/.absent" 2>/dev/null ||
				wild+=("$pkg/$p")
		done
	else
		rm -rf "$dir"
		mkdir -p "$dir"
		for p in $SOURCE_PATHS; do wild+=("$pkg/$p"); done
	fi
	if [ ${#wild[@]} -gt 0 ]; then
		log "unpacking ${#wild[@]} paths of $pkg $ver (checkpatch and the kernel reference)"
		f=$(apt_fetch "$pkg" all "$ver")
		err=$(dpkg-deb --fsys-tarfile "$f" | tar -xO --wildcards "./usr/src/$pkg.tar.*" |
			tar -xJ -C "$dir" --strip-components=1 "${wild[@]}" 2>&1) || :
		# Only members missing from this line's tarball are tolerated.
		if printf '%s\n' "$err" | grep -v '^$' | grep -vq 'Not found in archive\|Exiting with failure'; then
			die "cannot unpack $pkg: $err"
		fi
		printf '%s\n' "$err" | sed -n "s|^tar: $pkg/\(.*\): Not found in archive|\1|p" >>"$dir/.absent"
		touch "$dir/.complete"
	fi
	SRCVER=$ver
	echo "$dir"
}

# The kernel's ftrace selftests (ftracetest) of the line, from the
# linux-source unpacked above: copied into the guest as /nanograph/ftrace.
FTRACE_ST=tools/testing/selftests/ftrace

# Where the ftracetest results without nanograph are kept: they depend on
# the kernel build, the selftests' version and the guest userland (its
# packages, /init, the runner), never on the module or the collector.
# Test 34 runs without nanograph the cases of its run that the file
# lacks (all of them when there is none), and the host keeps the merged
# file it printed.
ftracetest_base_file() {
	local u
	u=$( (grep '^rt ' "$CACHE/userland/$DEB/manifest" 2>/dev/null
		cat "$ROOT/tools/guest-init.sh" "$ROOT/selftests/vm/ftrace-run.sh") |
		md5sum | cut -c1-8)
	echo "$CACHE/ftracetest/$ARCH-$KREL-$KVER-src$SRCVER-u$u.base"
}

# -------------------------------------------------------------------------
# Build: module, collector, guest helper, initramfs
# -------------------------------------------------------------------------

# What the module is built from (include/ holds the header shared with
# userspace once there is one).
module_sources() {
	local p
	for p in Kbuild Makefile kmod arch include; do
		[ -e "$ROOT/$p" ] && echo "$p"
	done
}

build_all() {
	local out=$OUTBASE/$TAG kdir ushared
	kdir=$KDIR_ROOT/usr/src/linux-headers-$KREL
	mkdir -p "$out"

	# The module is built from a private copy of its sources so that
	# several kernels can be built from one tree without clobbering.
	local run=() common checker=sparse where
	common=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$kdir/Makefile")
	checker_valid "$common"
	buildroot_ensure "$kdir"
	[ -z "$BUILDROOT" ] || run=(buildroot_run "$BUILDROOT")
	# The root's sparse may be too old for the headers (trixie's 0.6.4
	# for 7.3's): then sid's, which knows __typeof_unqual__.
	if [ -x "$common/scripts/checker-valid.sh" ] &&
	   [ "$("${run[@]}" "$common/scripts/checker-valid.sh" sparse)" = 0 ]; then
		checker=$(newer_sparse) || checker=sparse
		where=${BUILDROOT:+the ${BUILDROOT##*/} root}
		log "sparse in ${where:-the host} is too old for $KREL's headers: using $checker"
	fi
	mkdir -p "$out/src"
	(cd "$ROOT" && tar -cf - $(module_sources)) | tar -C "$out/src" -xf -
	# The selftests' own module, loaded while recording (test 39).
	cp -r "$ROOT/selftests/vm/testmod" "$out/src/"
	# The same sources built for the same kernel by the same tools give
	# the same modules: those of an earlier build are taken from the
	# cache, with its log, judged below as a new one is.
	local key mcache
	key=$({ echo "$KREL ${BUILDROOT##*/} $checker $CROSS"
		[ -n "$BUILDROOT" ] || "$TRIPLET-gcc-$(kernel_gcc "$kdir")" --version | head -n 1
		sha256sum <"$kdir/Module.symvers"
		cd "$ROOT" && find $(module_sources) selftests/vm/testmod -type f \
			! -name '.*' ! -name '*.o' ! -name '*.ko' ! -name '*.mod*' \
			! -name modules.order ! -name Module.symvers -print0 |
			LC_ALL=C sort -z | xargs -0 sha256sum; } | sha256sum | cut -c 1-16)
	mcache=$CACHE/modules/$TAG/$key
	if [ -f "$mcache/build.log" ]; then
		log "the module for $KREL: built before ($mcache)"
		cp "$mcache/nanograph.ko" "$out/src/kmod/"
		cp "$mcache/ng_testmod.ko" "$out/src/testmod/"
		cp "$mcache/build.log" "$out/build.log"
	else
		log "building the module for $KREL${BUILDROOT:+ in ${BUILDROOT##*/}}"
		"${run[@]}" make -s -C "$out/src" module KDIR="$kdir" ARCH="$KARCH" \
			CROSS_COMPILE="$CROSS" W=1 C=1 CHECK="$checker" >"$out/build.log" 2>&1 ||
			{ cat "$out/build.log" >&2; die "module build failed for $TAG"; }
		"${run[@]}" make -s -C "$kdir" M="$out/src/testmod" ARCH="$KARCH" \
			CROSS_COMPILE="$CROSS" W=1 C=1 CHECK="$checker" modules >>"$out/build.log" 2>&1 ||
			{ cat "$out/build.log" >&2; die "test module build failed for $TAG"; }
		# Older builds of this cell go: one per cell is kept.
		rm -rf "$CACHE/modules/$TAG"
		mkdir -p "$mcache.tmp"
		cp "$out/src/kmod/nanograph.ko" "$out/src/testmod/ng_testmod.ko" \
			"$out/build.log" "$mcache.tmp/"
		mv "$mcache.tmp" "$mcache"
	fi
	# Any compiler (W=1), sparse (C=1), objtool or modpost warning
	# fails the rig; not kbuild's notes that the toolchain's version is
	# not exactly the kernel's (Debian allows it).
	if grep -E 'warning:|WARNING:' "$out/build.log" |
			grep -v 'the compiler differs\|pahole version differs' >&2; then
		die "module build for $TAG has warnings"
	fi
	# No sparse that parses these headers (newer_sparse failed, offline):
	# kbuild then skipped C=1, and a build without its sparse pass is not
	# the build the matrix promises.
	! grep -q 'sparse is not available or not up to date' "$out/build.log" ||
		die "no sparse pass for $KREL: no sparse that parses its headers (see $out/build.log)"

	# The collector and the test helper depend only on the architecture.
	ushared=$OUTBASE/userspace-$ARCH
	log "building the collector for $ARCH"
	make -s -C "$ROOT/userspace" O="$ushared" CROSS_COMPILE="$CROSS" \
		SYSROOT="$CACHE/userland/$DEB/sysroot" >"$ushared.log" 2>&1 ||
		{ cat "$ushared.log" >&2; die "collector build failed for $ARCH"; }
	make -s -C "$ROOT/selftests/vm" O="$ushared" CROSS_COMPILE="$CROSS" \
		>>"$ushared.log" 2>&1 ||
		{ cat "$ushared.log" >&2; die "selftest helper build failed for $ARCH"; }

	# The kernel's ftrace selftests only where test 34 runs: the source
	# package is large.  source_fetch sets SRCVER; in a subshell it
	# would not.
	: >"$out/source.dir"
	! ftracetest_wanted || source_fetch >"$out/source.dir"
	initramfs_pack "$out" "$ushared" "$(cat "$out/source.dir")"
}

# -------------------------------------------------------------------------
# Build roots: the compiler a kernel was built with, when the host has not
# -------------------------------------------------------------------------

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
	"${un[@]}" sh -ec 'r=$1 c=$2 o=$3; shift 3
		mount --rbind /proc "$r/proc"
		for d in "$c" "$o"; do
			mkdir -p "$r$d"
			mount --bind "$d" "$r$d"
		done
		exec chroot "$r" "$@"' sh "$r" "$CACHE" "$OUTBASE" "$@"
}

# Lay out the guest's root: the runtime packages (minus documentation and
# locale data), the module, the collector and the selftests; pack it as an
# uncompressed newc cpio (nothing to decompress under emulation).
initramfs_pack() {
	local out=$1 ushared=$2 src=$3 rt=$CACHE/userland/$DEB/rt r base
	r=$out/initramfs
	rm -rf "$r"
	mkdir -p "$r"
	cp -a "$rt/." "$r/"
	rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/locale" \
		"$r/usr/share/lintian" "$r/usr/lib/$TRIPLET/gconv" "$r/usr/share/bug"
	mkdir -p "$r"/{proc,sys,dev,tmp,run,root,etc,nanograph}
	cp "$ROOT/tools/guest-init.sh" "$r/init"
	chmod 755 "$r/init"
	cp "$out/src/kmod/nanograph.ko" "$out/src/testmod/ng_testmod.ko" "$r/nanograph/"
	cp "$ushared/nanograph" "$ushared/ngtest" "$r/nanograph/"
	cp -r "$ROOT/selftests/vm" "$r/nanograph/selftests"
	rm -rf "$r/nanograph/selftests/"*.c "$r/nanograph/selftests/Makefile" \
		"$r/nanograph/selftests/testmod"
	cp "$ROOT/tools/demo-guest.sh" "$ROOT/tools/bench-guest.sh" \
		"$ROOT/tools/profile-guest.sh" "$r/nanograph/"
	# The kernel's ftrace selftests, for test 34; without logs of
	# earlier runs.  The baseline goes in when the host has it.
	if [ -n "$src" ]; then
		cp -r "$src/$FTRACE_ST" "$r/nanograph/ftrace"
		rm -rf "$r/nanograph/ftrace/logs"
		base=$(ftracetest_base_file)
		[ ! -s "$base" ] || cp "$base" "$r/nanograph/ftracetest.base"
	fi
	echo "root:x:0:0:root:/root:/bin/sh" >"$r/etc/passwd"
	echo "root:x:0:" >"$r/etc/group"
	(cd "$r" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out/initramfs.cpio"
}

# -------------------------------------------------------------------------
# Boot and results
# -------------------------------------------------------------------------

# Does this boot run test 34 (ftracetest)?  It costs about 5.5 minutes
# on x86_64 6.1 (3.5 more the first time, for the baseline), so by
# default one cell of the matrix runs it (Documentation/testing.md).
ftracetest_wanted() {
	local w g gs
	if [ -n "$TESTS" ]; then
		# A list of globs: one of them names test 34, or no ftracetest.
		IFS=, read -ra gs <<<"$TESTS"
		for g in "${gs[@]}"; do
			# shellcheck disable=SC2254
			case 34-ftracetest in $g) return 0 ;; esac
		done
		return 1
	fi
	for w in $FTRACETEST_CELLS; do
		case "$w" in
		all | "$ARCH:$LINE") return 0 ;;
		esac
	done
	return 1
}

# Boot the VM.  MODE is "test", "shell", "demo", "bench", "profile" or "soak"; /init reads it
# from the kernel command line.  In test and demo mode the console goes to
# console.log (and to stdout with -v).
boot() {
	local mode=$1 out=$OUTBASE/$TAG vmlinuz append rc=0 dtb=()
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

# Print the text between two marker lines of the console log, with the
# carriage returns of the serial line removed.
between() {
	tr -d '\r' <"$3" | awk -v b="$1" -v e="$2" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }'
}

# Test 34 prints the ftracetest baseline when it grew it (cases of its
# run that the cached one lacked) between markers: keep it for the next
# boots of this kernel.
# Only a complete one: a header line with the case count, one line each.
ftracetest_base_keep() {
	local out=$1 base
	between NANOGRAPH-FTBASE-BEGIN NANOGRAPH-FTBASE-END "$out/console.log" >"$out/ftracetest.base"
	[ -s "$out/ftracetest.base" ] || { rm -f "$out/ftracetest.base"; return 0; }
	if ! awk 'NR == 1 { n = $2; next } NF >= 3 { c++ } END { exit !(n > 0 && c == n) }' \
			"$out/ftracetest.base"; then
		log "incomplete ftracetest baseline in the console; not kept"
		return 0
	fi
	base=$(ftracetest_base_file)
	mkdir -p "${base%/*}"
	cp "$out/ftracetest.base" "$base.new.$$" && mv "$base.new.$$" "$base"
	log "kept the ftracetest baseline: $base"
}

# Kernel splats that fail a run whatever the tests said.
SPLATS='WARNING:|BUG:|Oops|Kernel panic|rcu_.*detected stall|RCU Stall|soft lockup|hard LOCKUP|general protection fault|Unable to handle kernel|UBSAN:|KASAN:|kernel BUG'

# Each splat of a run with where it happened: for each CPU the kernel
# shows, its task, work item, PC and first frames, so that a CI log that
# keeps only this summary still says which code every CPU was in.  From
# the guest's dmesg (each line once) unless the boot died before it.
splat_where() {
	local src=$1/dmesg.txt
	[ -s "$src" ] || src=$1/console.log
	tr -d '\r' <"$src" | awk -v re="$SPLATS" '
		$0 ~ re { print; ctx = 40; frames = 0; next }
		ctx > 0 {
			ctx--
			if ($0 ~ /Comm:/) frames = 0
			if ($0 ~ /NMI backtrace|Comm:|Workqueue:|Stopper:|PC is at|LR is at|pc : [a-z_]|RIP:/) print
			else if ($0 ~ /( from |^ *\[<[0-9a-f]+>\] |^ *[a-z_][a-z_0-9.]*\+0x)/ && frames++ < 6) print
		}'
}

# The splats of console log $1 that fail the run: all of them, except a
# stall or soft lockup inside ftrace's own text patching (ftrace_replace_code,
# text_poke_bp_batch: x86 patches without a point to reschedule, and under
# emulation a whole-kernel patch by function_graph or the function tracer
# can outlast the 21 s threshold) entered from the kernel's own tracer
# switch, with no nanograph code anywhere in the report (no "[nanograph]"
# frame, no ng_* symbol, on any CPU shown).  Those are printed to $2 as
# the kernel's own emulation-speed stalls (Documentation/testing.md,
# "Stalls that are not nanograph's").  A report with nanograph in it
# always fails.
splats_of() {
	tr -d '\r' <"$1" | awk -v re="$SPLATS" -v known="$2" '
		function flush() {
			if (head == "") return
			own = head ~ /detected stall|soft lockup/ &&
			      body ~ /(ftrace_replace_code|text_poke_bp_batch)\+/ &&
			      body ~ /(register_ftrace_graph|tracing_set_tracer|ftrace_startup)\+/ &&
			      body !~ /\[nanograph\]|[ \t?]ng_[a-z_0-9]+\+0x/
			if (own) print head >known
			else print head
			head = ""; body = ""
		}
		$0 ~ re { flush(); head = $0; n = 0; next }
		head != "" && n++ < 80 { body = body "\n" $0 }
		END { flush() }'
}

# Turn the guest's KTAP and the console check into this run's results:
# one "ok"/"not ok" line per test, prefixed with ARCH-LINE, a count line.
results() {
	local out=$OUTBASE/$TAG tag=$TAG pass=0 fail=0 skip=0 line
	between NANOGRAPH-KTAP-BEGIN NANOGRAPH-KTAP-END "$out/console.log" >"$out/results.ktap"
	between NANOGRAPH-DMESG-BEGIN NANOGRAPH-DMESG-END "$out/console.log" >"$out/dmesg.txt"
	ftracetest_base_keep "$out"
	between NANOGRAPH-FTRACETEST-BEGIN NANOGRAPH-FTRACETEST-END "$out/console.log" >"$out/ftracetest.txt"
	[ -s "$out/ftracetest.txt" ] || rm -f "$out/ftracetest.txt"
	if ! grep -q '^1\.\.[0-9]' "$out/results.ktap"; then
		local last
		last=$(tr -d '\r' <"$out/console.log" | sed -n 's/.*nanograph-vm: test \([^ ]*\) started.*/\1/p' | tail -n 1)
		echo "not ok - $tag boot: no KTAP results${last:+; the last test started was $last} (see $out/console.log)"
		tail -n 30 "$out/console.log" | sed 's/^/# /'
		fail=$((fail + 1))
	else
		while IFS= read -r line; do
			case "$line" in
			"ok "*"# SKIP"*) skip=$((skip + 1)); echo "$line" | sed "s/^ok [0-9]* /ok - $tag /" ;;
			"ok "*) pass=$((pass + 1)); echo "$line" | sed "s/^ok [0-9]* /ok - $tag /" ;;
			"not ok "*) fail=$((fail + 1)); echo "$line" | sed "s/^not ok [0-9]* /not ok - $tag /" ;;
			"#"*) echo "$line" ;;
			esac
		done <"$out/results.ktap"
		local planned
		planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out/results.ktap" | head -n 1)
		if [ $((pass + fail + skip)) -ne "$planned" ]; then
			echo "not ok - $tag ktap: planned $planned tests, saw $((pass + fail + skip))"
			fail=$((fail + 1))
		fi
	fi
	rm -f "$out/splats-kernel.txt"
	splats_of "$out/console.log" "$out/splats-kernel.txt" >"$out/splats.txt"
	if [ -s "$out/splats.txt" ]; then
		echo "not ok - $tag console: kernel splat"
		splat_where "$out" | head -n 60 | sed 's/^/# /'
		fail=$((fail + 1))
	else
		echo "ok - $tag console: no warnings, oopses, stalls or lockups with nanograph in them"
		pass=$((pass + 1))
	fi
	if [ -s "$out/splats-kernel.txt" ]; then
		echo "# $tag console: $(sort -u "$out/splats-kernel.txt" | wc -l) stall(s) of the kernel's own ftrace text patching under emulation, no nanograph code in them, not counted:"
		sort -u "$out/splats-kernel.txt" | head -n 5 | sed 's/^/#   /'
	fi
	echo "# $tag: $pass passed, $fail failed, $skip skipped"
	echo "$pass $fail $skip" >"$out/counts"
	[ "$fail" -eq 0 ]
}

# -------------------------------------------------------------------------

main() {
	local opt cmd
	while getopts "a:k:m:t:uvh" opt; do
		case "$opt" in
		a) ARCH=$OPTARG ;;
		k) LINE=$OPTARG ;;
		m) MACHINE=$OPTARG ;;
		t) TESTS=$OPTARG ;;
		u) FORCE_UPDATE=1 ;;
		v) VERBOSE=1 ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	cmd=${1:-run}
	if [ "$cmd" = list ]; then
		echo "architectures: x86_64 arm64 arm"
		echo "kernel lines:  $LINES"
		echo "patched lines: patched on $PATCHED_ARCHES (tools/kernel-build.sh)"
		echo "machines:      arm: virt (default), vexpress-a9"
		exit 0
	fi
	arch_setup
	machine_setup
	line_setup
	# Runs of several cells at once (make check) share the apt states,
	# the unpacked kernels and userlands, the build roots and each
	# architecture's collector build: one fetches and builds at a time,
	# while the others boot.
	mkdir -p "$CACHE"
	# The patched line's kernel is built (or found built) first, outside
	# the lock: tools/kernel-build.sh fetches through this script.
	if [ "$LINE" = patched ]; then
		case " $PATCHED_ARCHES " in
		*" $ARCH "*) ;;
		*) die "the patched line is built for $PATCHED_ARCHES only" ;;
		esac
		local flag=()
		case "$cmd" in resolve | source) flag=(-p) ;; esac
		PATCHED_DIR=$("$ROOT/tools/kernel-build.sh" -a "$ARCH" "${flag[@]}") ||
			die "tools/kernel-build.sh -a $ARCH failed"
	fi
	exec 9>"$CACHE/.build.lock"
	flock 9
	kernel_resolve
	case "$cmd" in
	resolve) echo "$ARCH $LINE $KREL $KVER"; exit 0 ;;
	source) source_fetch ;;
	headers) kernel_fetch; echo "$KDIR_ROOT/usr/src/linux-headers-$KREL" ;;
	fetch) kernel_fetch; userland_fetch ;;
	build) kernel_fetch; userland_fetch; build_all ;;
	run | shell | demo | bench | profile | soak)
		kernel_fetch; userland_fetch; build_all
		exec 9>&-
		case "$cmd" in
		run) boot test; results ;;
		soak)
			# The soak's own length, plus the boot and the unload.
			[ -n "${NANOGRAPH_VM_TIMEOUT:-}" ] ||
				VM_TIMEOUT=$(( ${NANOGRAPH_SOAK_MINUTES:-10} * 60 + 900 ))
			boot soak; results ;;
		*) boot "$cmd" ;;
		esac ;;
	*) usage >&2; exit 2 ;;
	esac
}

main "$@"
