#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: the kernel's checkpatch.pl over the kernel-side sources, as
# KTAP lines.  checkpatch comes from Debian's linux-source package,
# unpacked into the rig's cache by "tools/vmtest.sh source".  (W=1 and
# sparse run on every module build of the VM rig.)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1

src=$(tools/vmtest.sh -k 6.1 source) || { echo "not ok - lint: no checkpatch (tools/vmtest.sh source failed)"; exit 1; }
files=$(ls kmod/*.[ch] arch/*/*.[chS] include/*.h 2>/dev/null)
out=$(perl "$src/scripts/checkpatch.pl" --no-tree --file --terse --show-types \
	--strict $files 2>&1 | grep -v -e 'has no obvious style problems' -e '^total: 0 errors, 0 warnings, 0 checks')
if [ -z "$out" ]; then
	echo "ok - lint checkpatch --strict ($(echo "$files" | wc -l) files)"
else
	echo "not ok - lint checkpatch --strict"
	echo "$out" | sed 's/^/# /'
	exit 1
fi
