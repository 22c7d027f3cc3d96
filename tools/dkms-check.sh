#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's DKMS test: register the module with DKMS in a private tree
# (--dkmstree/--sourcetree: nothing of the system's changes) and build it
# for a cached kernel's headers, as a kernel upgrade would; the module
# must come out with that kernel's vermagic.  KTAP lines on stdout.
#
#   tools/dkms-check.sh [ARCH LINE]    (default: x86_64 6.12)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
arch=${1:-x86_64} line=${2:-6.12}
cd "$ROOT" || exit 1

kdir=$(tools/vmtest.sh -a "$arch" -k "$line" headers) ||
	{ echo "not ok - dkms: no headers for $arch $line"; exit 1; }
krel=$(cat "$kdir/include/config/kernel.release")
ver=$(make -s --no-print-directory dkms-version)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree" "$tmp/src"

name="dkms build of nanograph $ver for $krel"
if ! make -s dkms-source DKMS_SRC="$tmp/src/nanograph-$ver" >"$tmp/log" 2>&1 ||
   ! dkms add -m nanograph -v "$ver" --dkmstree "$tmp/tree" \
	--sourcetree "$tmp/src" >>"$tmp/log" 2>&1 ||
   ! dkms build -m nanograph -v "$ver" -k "$krel" --kernelsourcedir "$kdir" \
	--dkmstree "$tmp/tree" --sourcetree "$tmp/src" >>"$tmp/log" 2>&1; then
	echo "not ok - $name"
	sed 's/^/# /' "$tmp/log" | tail -n 30
	find "$tmp/tree" -name make.log -exec tail -n 20 {} \; | sed 's/^/# /'
	exit 1
fi
ko=$(find "$tmp/tree/nanograph/$ver/$krel" -name nanograph.ko | head -n 1)
magic=$(modinfo -F vermagic "$ko" 2>/dev/null)
case "$magic" in
"$krel "*) echo "ok - $name (vermagic $magic)" ;;
*)
	echo "not ok - $name: module ${ko:-missing}, vermagic '$magic'"
	exit 1
	;;
esac
