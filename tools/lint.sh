#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: the kernel's checkpatch.pl over the kernel-side sources, the
# VM rig's scripts through shellcheck, and the build's refusal of kernels
# that lack what the tracer needs, as KTAP lines.  checkpatch comes from
# Debian's linux-source package, unpacked into the rig's cache by
# "tools/vmtest.sh source".  (W=1 and sparse run on every module build of
# the VM rig.)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1

src=$(tools/vmtest.sh -k 6.1 source) || { echo "not ok - lint: no checkpatch (tools/vmtest.sh source failed)"; exit 1; }
# The sources, not what a build left next to them (nanograph.mod.c).
files=$(ls kmod/*.[ch] arch/*/*.[chS] include/*.h selftests/vm/testmod/*.c 2>/dev/null | grep -v '\.mod\.c$')
rc=0
# checkpatch NAME WHAT ARGS...: one KTAP line for checkpatch --strict over
# ARGS (its findings as comments); WHAT counts what was checked.
checkpatch() {
	local name=$1 what=$2 out
	shift 2
	out=$(perl "$src/scripts/checkpatch.pl" --no-tree --terse --show-types --strict "$@" 2>&1 |
		grep -v -e 'has no obvious style problems' -e '^total: 0 errors, 0 warnings, 0 checks')
	if [ -z "$out" ]; then
		echo "ok - lint checkpatch --strict$name ($what)"
	else
		echo "not ok - lint checkpatch --strict$name"
		echo "$out" | sed 's/^/# /'
		rc=1
	fi
}
# shellcheck disable=SC2086 # one argument per file
checkpatch "" "$(echo "$files" | wc -l) files" --file $files
# The kernel series, as patches (kernel-patches/*/ when rebased per
# line), named by absolute paths: given a relative path inside a git
# work tree, checkpatch took context lines for code.
patches=()
for p in "$ROOT"/kernel-patches/[0-9][0-9][0-9][0-9]-*.patch \
	"$ROOT"/kernel-patches/*/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-*) ;; *) [ ! -e "$p" ] || patches+=("$p") ;; esac
done
checkpatch " kernel-patches" "${#patches[@]} patches" "${patches[@]}"

# The rig's shell: tools/vmtest.sh with the files it sources (-x), and
# each file of tools/vm/ on its own, at shellcheck's default level.
rig=(tools/vmtest.sh tools/vm/*.sh)
if ! command -v shellcheck >/dev/null; then
	echo "ok - lint shellcheck # SKIP no shellcheck (tools/setup-host.sh installs it)"
elif out=$(shellcheck -x "${rig[@]}" 2>&1); then
	echo "ok - lint shellcheck (the rig: ${#rig[@]} files)"
else
	echo "not ok - lint shellcheck (the rig)"
	echo "$out" | sed 's/^/# /'
	rc=1
fi

# The build must stop with a clear message on a kernel without ftrace
# support.  Configuration symbols given on make's command line override
# the kernel's auto.conf, which stands in for such a kernel.
kdir=$(tools/vmtest.sh -a x86_64 -k 6.1 headers) || { echo "not ok - lint: no headers"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -cf - Kbuild Makefile kmod arch include | tar -C "$tmp" -xf -
# refuses [-k KDIR MAKEVARS...] WANT SYMBOLS...: the build against KDIR
# (default: x86_64's) with SYMBOLS overridden fails saying WANT.
refuses() {
	local want log k=$kdir kvars=()
	if [ "$1" = -k ]; then
		k=$2
		kvars=("${@:3:2}")
		shift 4
	fi
	want=$1
	shift
	if log=$(make -s -C "$tmp" module KDIR="$k" "${kvars[@]}" "$@" 2>&1); then
		echo "not ok - build refuses a kernel with $*: it built"
		rc=1
	elif ! grep -q "nanograph: kernel .* $want" <<<"$log"; then
		echo "not ok - build refuses a kernel with $*: no clear message"
		echo "$log" | tail -n 5 | sed 's/^/# /'
		rc=1
	else
		echo "ok - build refuses a kernel with $*"
	fi
}
refuses "lacks CONFIG_FUNCTION_TRACER" CONFIG_FUNCTION_TRACER=
refuses "lacks CONFIG_DYNAMIC_FTRACE" CONFIG_DYNAMIC_FTRACE=
refuses "has neither CONFIG_DYNAMIC_FTRACE_WITH_REGS" \
	CONFIG_DYNAMIC_FTRACE_WITH_REGS= CONFIG_DYNAMIC_FTRACE_WITH_ARGS=
refuses "lacks CONFIG_TRACING" CONFIG_TRACING=
# A Thumb-2 arm kernel: the arm trampoline is ARM-mode, frames use r11.
armkdir=$(tools/vmtest.sh -a arm -k 6.1 headers) || { echo "not ok - lint: no arm headers"; exit 1; }
refuses -k "$armkdir" ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- \
	"is built with CONFIG_THUMB2_KERNEL" CONFIG_THUMB2_KERNEL=y
# arm64 with a shadow call stack: returns go through the shadow copy.
arm64kdir=$(tools/vmtest.sh -a arm64 -k 6.1 headers) || { echo "not ok - lint: no arm64 headers"; exit 1; }
refuses -k "$arm64kdir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	"is built with CONFIG_SHADOW_CALL_STACK" CONFIG_SHADOW_CALL_STACK=y
exit $rc
