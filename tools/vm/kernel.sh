# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/kernel.sh - the guest kernel: resolve the line, fetch and unpack it.
#
# kernel_resolve sets KVER KREL KLINE KDIR_ROOT for ARCH/LINE (memoised in
# $CACHE/kernels/ARCH-LINE.resolved for offline runs); kernel_fetch unpacks
# the image, its headers and the host's kbuild into
# $CACHE/kernels/DEB/KREL/ once (.complete), plus the machine's device tree.
# The patched line is tools/kernel-build.sh's build instead (patched_*),
# laid out the same way.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

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
	# shellcheck disable=SC2001
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

# The patched line's kernel, built by tools/kernel-build.sh or found built,
# into PATCHED_DIR; before the cache's lock is taken, as kernel-build.sh
# fetches through vmtest.sh.  For the commands resolve and source (CMD) it
# only names the directory (-p), built or not.
patched_build() {
	local cmd=$1 flag=()
	case " $PATCHED_ARCHES " in
	*" $ARCH "*) ;;
	*) die "the patched line is built for $PATCHED_ARCHES only" ;;
	esac
	case "$cmd" in resolve | source) flag=(-p) ;; esac
	PATCHED_DIR=$("$ROOT/tools/kernel-build.sh" -a "$ARCH" "${flag[@]}") ||
		die "tools/kernel-build.sh -a $ARCH failed"
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
