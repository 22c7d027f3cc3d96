#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: host unit tests, then the VM matrix, one summary line.
#
#   tools/check.sh [--unit-only | --vm-only]
#
# NANOGRAPH_MATRIX overrides the boots, e.g. "x86_64:6.1 arm64:6.12".
# The last line is "N passed, N failed"; the exit status is 0 only when
# nothing failed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MATRIX=${NANOGRAPH_MATRIX:-"x86_64:6.1 x86_64:6.12 arm64:6.1 arm64:6.12 arm:6.1 arm:6.12"}
unit=1 vm=1
case "${1:-}" in
--unit-only) vm=0 ;;
--vm-only) unit=0 ;;
"") ;;
*) echo "usage: $0 [--unit-only|--vm-only]" >&2; exit 2 ;;
esac

pass=0 fail=0 skip=0

# Count the KTAP result lines of one suite's output, echoing them.
tally() {
	local line
	while IFS= read -r line; do
		echo "$line"
		case "$line" in
		"ok "*"# SKIP"*) skip=$((skip + 1)) ;;
		"ok "*) pass=$((pass + 1)) ;;
		"not ok "*) fail=$((fail + 1)) ;;
		esac
	done
}

"$ROOT/tools/setup-host.sh" || { echo "0 passed, 1 failed"; exit 1; }
start=$(date +%s)

if [ "$unit" = 1 ]; then
	echo "# host unit tests"
	out=$(mktemp)
	if make -s -C "$ROOT/userspace" check >"$out" 2>&1; then rc=0; else rc=$?; fi
	tally <"$out"
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$out"; then
		# The build or the runner itself failed: that is a failure too.
		echo "not ok - unit tests: make -C userspace check exited $rc"
		tail -n 20 "$out" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
	rm -f "$out"
fi

if [ "$unit" = 1 ]; then
	echo "# lint"
	"$ROOT/tools/lint.sh" 2>&1 | tally
fi

if [ "$vm" = 1 ]; then
	for cell in $MATRIX; do
		echo "# VM ${cell%%:*} ${cell##*:}"
		out=$(mktemp)
		if "$ROOT/tools/vmtest.sh" -a "${cell%%:*}" -k "${cell##*:}" run >"$out" 2>&1; then
			rc=0
		else
			rc=$?
		fi
		tally <"$out"
		if [ "$rc" != 0 ] && ! grep -q '^not ok' "$out"; then
			echo "not ok - ${cell%%:*}-${cell##*:} rig: vmtest.sh exited $rc"
			grep -v '^\(ok\|#\)' "$out" | tail -n 20 | sed 's/^/# /'
			fail=$((fail + 1))
		fi
		rm -f "$out"
	done
fi

echo "# $(( $(date +%s) - start ))s"
[ "$skip" = 0 ] || echo "# $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
