#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the kernel that carries kernel-patches/ (issue 12: nanograph as an
# ftrace tracer): Debian's linux-source of the 6.12 line as trixie has it
# (the version the rig's "trixie" cells boot stock), with the series
# applied, Debian's config of the rig's "6.12" line minus every module
# (the rig's guests load none but nanograph's) and minus debug info, so
# that one build takes minutes, not hours.
#
#   tools/kernel-build.sh [-a ARCH] [-j JOBS] [-p]
#
# -p prints the directory the build goes to and stops, built or not.
# The result is cached under $NANOGRAPH_CACHE/patched/ARCH-KEY, KEY a hash of
# the source package, the patches, Debian's config and RECIPE: built once,
# reused while none of them changes; when only the patches change, the
# last build's tree is taken over and rebuilt incrementally.  The directory holds the boot
# image (vmlinuz), a kbuild tree to build modules against (build/, as
# /lib/modules/*/build) and build-time (seconds).  Prints the directory.
# One build per architecture at a time (a lock in the cache).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${NANOGRAPH_CACHE:-$HOME/.cache/nanograph}
ARCH=x86_64
JOBS=$(nproc)
PRINT=0
while getopts a:j:ph o; do
	case $o in
	a) ARCH=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	p) PRINT=1 ;;
	*) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
case $ARCH in
x86_64) KARCH=x86 CROSS=x86_64-linux-gnu- IMAGE=arch/x86/boot/bzImage ;;
arm64) KARCH=arm64 CROSS=aarch64-linux-gnu- IMAGE=arch/arm64/boot/Image.gz ;;
*) echo "kernel-build: $ARCH: only x86_64 and arm64 are built" >&2; exit 2 ;;
esac
log() { echo "kernel-build: $*" >&2; }

# Debian's 6.12 source as trixie has it (newer than bookworm-backports'
# 6.12, which the rig's "6.12" line boots; kernel-patches/ follow it),
# and Debian's config for ARCH of the 6.12 line, through the rig
# (downloaded once, cached).  Named, not the newest deb in the cache:
# which debs a cache holds depends on which cells ran before.
SRCDIR=$("$ROOT/tools/vmtest.sh" -a "$ARCH" -k trixie source)
SRCDEB=$CACHE/debs/linux-source-6.12_${SRCDIR##*/6.12-}_all.deb
[ -f "$SRCDEB" ] || { log "no $SRCDEB (the source of $SRCDIR)"; exit 1; }
HDRS=$("$ROOT/tools/vmtest.sh" -a "$ARCH" -k 6.12 headers)
CONFIG=$HDRS/.config
[ -s "$CONFIG" ] || { log "no Debian config at $CONFIG"; exit 1; }
# The series without its cover letter, in order.
PATCHES=()
for p in "$ROOT"/kernel-patches/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-*) ;; *) PATCHES+=("$p") ;; esac
done

# Bump when the steps below change what is built (config edits, targets).
RECIPE=1
KEY=$( { basename "$SRCDEB"; cat "${PATCHES[@]}" "$CONFIG"; echo "$RECIPE"; } |
	sha256sum | cut -c1-16)
OUT=$CACHE/patched/$ARCH-$KEY
if [ "$PRINT" = 1 ] || [ -e "$OUT/.complete" ]; then
	echo "$OUT"
	exit 0
fi
mkdir -p "$CACHE/patched"
exec 8>"$CACHE/patched/.$ARCH.lock"
flock 8
if [ -e "$OUT/.complete" ]; then
	# Built by another run while this one waited.
	echo "$OUT"
	exit 0
fi
# stdout is the caller's: the path alone (tools/vm/kernel.sh takes it with
# $(...)).  What the build steps print (localmodconfig's questions) goes
# to stderr; on a cold machine it was taken for the path.
exec 9>&1 1>&2
SRC=$OUT/src
OBJ=$OUT/build
start=$(date +%s)
mk() { make -C "$SRC" O="$OBJ" ARCH="$KARCH" CROSS_COMPILE="$CROSS" "$@"; }
# A build that was cut short (the machine stopped) after its tree was
# patched and configured goes on where it stopped: make is incremental.
# Anything less than that is started again.
if [ -e "$OUT/.configured" ]; then
	log "resuming $OUT"
	RESUMED=1
else
	rm -rf "$OUT"
fi
# The same source and config as an earlier build with other patches: that
# tree is taken over, its series reversed and this one applied, so that
# make rebuilds only what the patches touch (minutes, not the hour a
# whole build takes on 2 cores).
BASE=$( { basename "$SRCDEB"; cat "$CONFIG"; echo "$RECIPE"; } | sha256sum | cut -c1-16)
for old in "$CACHE"/patched/"$ARCH"-*; do
	[ "${RESUMED:-0}" = 1 ] && break
	if [ ! -e "$old/.complete" ] || [ "$(cat "$old/base" 2>/dev/null)" != "$BASE" ]; then
		continue
	fi
	log "reusing $old"
	REUSED=1
	mv "$old" "$OUT"
	rm -f "$OUT/.complete" "$OUT/.configured"
	for p in $(find "$OUT/patches" -name '*.patch' | sort -r); do
		patch -d "$SRC" -p1 -R --quiet <"$p"
	done
	rm -rf "$OUT/patches"
	break
done
if [ ! -d "$SRC" ]; then
	mkdir -p "$SRC" "$OBJ"
	log "unpacking $(basename "$SRCDEB")"
	dpkg-deb --fsys-tarfile "$SRCDEB" | tar -xO --wildcards './usr/src/linux-source-6.12.tar.*' |
		tar -xJ -C "$SRC" --strip-components=1
fi
[ "${RESUMED:-0}" = 1 ] || mkdir -p "$OUT/patches"
[ "${RESUMED:-0}" = 1 ] || for p in "${PATCHES[@]}"; do
	log "applying $(basename "$p")"
	patch -d "$SRC" -p1 --forward --quiet <"$p"
	cp "$p" "$OUT/patches/"
done
echo "$BASE" >"$OUT/base"

# Debian's config, then: no module signing keys of Debian's, no debug
# info (BTF needs it; the rig reads neither), every module off.  Not
# again in a tree taken over: the config is the same (BASE), and writing
# it again would date autoconf.h anew and rebuild everything.
if [ "${REUSED:-0}" != 1 ] && [ "${RESUMED:-0}" != 1 ]; then
	cp "$CONFIG" "$OBJ/.config"
	"$SRC/scripts/config" --file "$OBJ/.config" \
		--set-str LOCALVERSION "-nanograph" \
		--disable MODULE_SIG --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS "" \
		--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_DWARF4 \
		--disable DEBUG_INFO_DWARF5 --disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE
	mk -s olddefconfig
	: >"$OUT/lsmod"	# no module loaded: localmodconfig turns every one off
	mk -s LSMOD="$OUT/lsmod" localmodconfig </dev/null
	mk -s olddefconfig
fi
touch "$OUT/.configured"
log "building $(make -s -C "$SRC" kernelversion)-nanograph for $ARCH, -j$JOBS"
mk -s -j"$JOBS" all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log" >&2; exit 1; }
cp "$OBJ/$IMAGE" "$OUT/vmlinuz"
echo $(($(date +%s) - start)) >"$OUT/build-time"
touch "$OUT/.complete"
# Older builds for ARCH go (2.5 GB each): one per architecture is kept.
for old in "$CACHE"/patched/"$ARCH"-*; do
	[ "$old" = "$OUT" ] || rm -rf "$old"
done
log "built in $(cat "$OUT/build-time") s: $OUT"
echo "$OUT" >&9
