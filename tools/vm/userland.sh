# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/userland.sh - the guest's userland: Debian packages for the
# initramfs and the collector's sysroot.
#
# userland_fetch resolves the runtime closure of USERLAND_RT and the -dev
# packages of USERLAND_DEV (bookworm's, for DEB) and unpacks them into
# $CACHE/userland/DEB/{rt,sysroot}/, again only when that list changes.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

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
	# shellcheck disable=SC2046 # one word per package
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
