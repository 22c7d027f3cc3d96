#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a stock Debian kernel in QEMU, load nanograph, trace a
# real command, and copy what the guest wrote to ./demo-output.
#
#   tools/demo.sh [-a ARCH] [-k LINE]      (default x86_64, 6.1)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCH=x86_64 LINE=6.1
while getopts "a:k:" opt; do
	case "$opt" in
	a) ARCH=$OPTARG ;;
	k) LINE=$OPTARG ;;
	*) echo "usage: $0 [-a ARCH] [-k LINE]" >&2; exit 2 ;;
	esac
done
DEST=${NANOGRAPH_DEMO_OUT:-$ROOT/demo-output}
VMOUT=${NANOGRAPH_OUT:-$ROOT/build/vm}/$ARCH-$LINE

"$ROOT/tools/setup-host.sh"
"$ROOT/tools/vmtest.sh" -a "$ARCH" -k "$LINE" demo

log=$VMOUT/console.log
tr -d '\r' <"$log" | sed -n '/^NANOGRAPH-DEMO-BEGIN$/,/^NANOGRAPH-DEMO-END$/p' |
	sed '1d;$d' >"$VMOUT/demo.b64"
[ -s "$VMOUT/demo.b64" ] || { echo "demo: the guest produced no output; see $log" >&2; exit 1; }
rm -rf "$DEST"
mkdir -p "$DEST"
base64 -d <"$VMOUT/demo.b64" | tar -C "$DEST" -xf -
echo
cat "$DEST/demo.log"
echo
echo "demo: output of the $ARCH $LINE guest is in $DEST"
ls -l "$DEST"
