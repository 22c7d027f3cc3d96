# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/build.sh - build what the guest runs: the module, the
# collector, the initramfs.
#
# build_all builds the module (W=1 C=1, cached by its inputs' hash in
# $CACHE/modules/TAG/), the collector and the test helper
# ($OUTBASE/userspace-ARCH/) and packs $OUTBASE/TAG/initramfs.cpio.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

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

# What the module is built from (include/ holds the header shared with
# userspace once there is one).
module_sources() {
	local p
	for p in Kbuild Makefile kmod arch include; do
		[ -e "$ROOT/$p" ] && echo "$p"
	done
}

# The module and the selftests' module for the cell's kernel, into OUT/src/
# (OUT/build.log): the module is built from a private copy of its sources
# so that several kernels can be built from one tree without clobbering.
module_build() {
	local out=$1 kdir run=() common checker=sparse where
	kdir=$KDIR_ROOT/usr/src/linux-headers-$KREL
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
	# shellcheck disable=SC2046 # one word per path
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
		# shellcheck disable=SC2046 # one word per path
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
}

# The collector and the test helper, into USHARED: they depend only on the
# architecture.
collector_build() {
	local ushared=$1
	log "building the collector for $ARCH"
	make -s -C "$ROOT/userspace" O="$ushared" CROSS_COMPILE="$CROSS" \
		SYSROOT="$CACHE/userland/$DEB/sysroot" >"$ushared.log" 2>&1 ||
		{ cat "$ushared.log" >&2; die "collector build failed for $ARCH"; }
	make -s -C "$ROOT/selftests/vm" O="$ushared" CROSS_COMPILE="$CROSS" \
		SYSROOT="$CACHE/userland/$DEB/sysroot" >>"$ushared.log" 2>&1 ||
		{ cat "$ushared.log" >&2; die "selftest helper build failed for $ARCH"; }
}

build_all() {
	local out=$OUTBASE/$TAG ushared=$OUTBASE/userspace-$ARCH
	mkdir -p "$out"
	module_build "$out"
	collector_build "$ushared"
	# The kernel's ftrace selftests only where test 34 runs: the source
	# package is large.  source_fetch sets SRCVER; in a subshell it
	# would not.
	: >"$out/source.dir"
	! ftracetest_wanted || source_fetch >"$out/source.dir"
	initramfs_pack "$out" "$ushared" "$(cat "$out/source.dir")"
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
	cp "$ushared/nanograph" "$ushared/ngtest" "$ushared/ngbpf" "$r/nanograph/"
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
