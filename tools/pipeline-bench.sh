#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The recording pipeline's throughput on the host (tools/pipeline-bench.c):
#
#   tools/pipeline-bench.sh [-n CALLS] [-r RUNS] [-O BUILD_DIR]
#
# Builds userspace (into BUILD_DIR, default userspace/ itself) and the
# bench against its libnanograph.a, writes the inputs into a new directory
# under /var/tmp (removed at the end) and prints the CPU time of each run
# of the raw and the trace.dat source and their median. To compare two
# trees, run it in each on the same machine.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
calls=2000000 runs=5 build=$ROOT/userspace
while getopts "n:r:O:" opt; do
	case "$opt" in
	n) calls=$OPTARG ;;
	r) runs=$OPTARG ;;
	O) build=$OPTARG ;;
	*) echo "usage: $0 [-n CALLS] [-r RUNS] [-O BUILD_DIR]" >&2; exit 2 ;;
	esac
done
work=$(mktemp -d /var/tmp/ng-pipeline-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$build"
make -s -C "$ROOT/userspace" O="$build" >/dev/null
pkgs="libtracecmd libtracefs libtraceevent libbpf"
# shellcheck disable=SC2046,SC2086 # the flags are words, as pkg-config prints them
gcc -O2 -Wall -Wextra -Werror -I"$ROOT/userspace/include" -I"$ROOT/include" \
	-I"$ROOT/selftests/host" $(pkg-config --cflags $pkgs) \
	-o "$work/pipeline-bench" "$ROOT/tools/pipeline-bench.c" \
	"$ROOT/selftests/host/tdat_gen.c" "$build/libnanograph.a" \
	$(pkg-config --libs $pkgs) -lpthread
"$work/pipeline-bench" "$work" "$calls" "$runs"
