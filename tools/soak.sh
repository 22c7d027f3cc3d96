#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak: boot each architecture's Debian kernel once and run the soak
# test (selftests/vm/soak/00-soak.tc): every function hooked, every task
# traced, raw buffers drained by a reader, fork/exec/pipe/file load on
# both vCPUs for SOAK_MINUTES; then stop and unload.  A run fails on any
# kernel splat in the console (WARN, BUG, lockup, RCU stall: the rig's
# check), on unaccounted entries, or on an unload that takes over 2 s.
# In the same boot, every stressor of Debian's stress-ng in turn, traced
# the same way (selftests/vm/soak/01-stress-ng-sweep.tc).
# Then, in a second boot, the scenario tests that make check runs at a
# smaller size, at their full size (FULL_SIZES, ngvm.NAME= knobs of
# ng_param; Documentation/testing.md), ftracetest with all its cases,
# and Debian's stress-ng broad mix (54-stress-ng): 5 minutes as an
# ordinary user in raw mode with a reader, 5 as root in events mode,
# every function of every task hooked, each after the same 5 minutes
# without nanograph.
# Not part of make check: it takes SOAK_MINUTES and about 10 more minutes
# per architecture, one architecture at a time.
#
#   tools/soak.sh [-a "ARCHES"] [-k LINE] [-m MINUTES]
#
# Defaults: -a "x86_64 arm64 arm" -k 6.12 -m $SOAK_MINUTES (10).  Prints the
# figures of each boot and one summary line; exits non-zero if any failed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCHES=${SOAK_ARCHES:-"x86_64 arm64 arm"} LINE=${SOAK_LINE:-6.12} MINUTES=${SOAK_MINUTES:-10}
while getopts "a:k:m:" opt; do
	case "$opt" in
	a) ARCHES=$OPTARG ;;
	k) LINE=$OPTARG ;;
	m) MINUTES=$OPTARG ;;
	*) echo "usage: $0 [-a ARCHES] [-k LINE] [-m MINUTES]" >&2; exit 2 ;;
	esac
done
VMOUT=${NANOGRAPH_OUT:-$ROOT/build/vm}
# The scenario tests and the sizes make soak runs them at.
FULL_TESTS="07-*,28-*,29-*,32-*,33-*,34-*,36-*,54-*"
# At full size a test may take longer than the default per-test limit.
FULL_SIZES="race_seconds=4 fuzz_writes=100 cycles=100 burst=3000 tasks=20000 pid_map_writes=400 ftracetest_dirs=all stress_secs=300 test_timeout=3600"

"$ROOT/tools/setup-host.sh" || exit 1
pass=0 fail=0
for arch in $ARCHES; do
	echo "soak: $arch $LINE, $MINUTES minutes" >&2
	start=$(date +%s)
	rc=0
	NANOGRAPH_SOAK_MINUTES=$MINUTES "$ROOT/tools/vmtest.sh" -a "$arch" -k "$LINE" soak || rc=$?
	log=$VMOUT/$arch-$LINE/console.log
	tr -d '\r' <"$log" | grep -E '^soak (figures|problems):' | sed "s/^/$arch-$LINE: /"
	echo "$arch-$LINE: boot took $(( $(date +%s) - start )) s; console: $log"
	if [ "$rc" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

	echo "soak: $arch $LINE, scenario tests at full size ($FULL_SIZES)" >&2
	start=$(date +%s)
	rc=0
	NANOGRAPH_VM_TIMEOUT=${NANOGRAPH_VM_TIMEOUT:-5400} NANOGRAPH_PARAMS="${NANOGRAPH_PARAMS:-} $FULL_SIZES" \
		"$ROOT/tools/vmtest.sh" -a "$arch" -k "$LINE" -t "$FULL_TESTS" run || rc=$?
	echo "$arch-$LINE: full-size scenarios took $(( $(date +%s) - start )) s"
	if [ "$rc" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "soak: $pass passed, $fail failed"
[ "$fail" = 0 ]
