#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Sizes and times of "nanograph export" on a synthetic recording, the
# table of Documentation/report-export.md:
#
#   tools/export-bench.sh [-n CALLS] [-z ZIPF] [-r RUNS] [-f FORMATS] [DIR]
#
# Builds tools/genrec and userspace/nanograph, writes a recording of CALLS
# calls (default 100000000) into DIR (default: a new directory under
# /var/tmp, removed at the end; an existing recording in DIR is reused),
# then times each export (default FORMATS "perfetto chrome") RUNS times
# (default 3) with /usr/bin/time and prints one markdown row per format:
# the median run's time, and the largest max RSS of the runs. The output
# files go to DIR and are removed after each run. 100 million calls take
# about 4 GB of push/pop files, and 8.5 GB more for a moment for --chrome.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
calls=100000000 zipf=1 runs=3 formats="perfetto chrome"
while getopts "n:z:r:f:" opt; do
	case "$opt" in
	n) calls=$OPTARG ;;
	z) zipf=$OPTARG ;;
	r) runs=$OPTARG ;;
	f) formats=$OPTARG ;;
	*) echo "usage: $0 [-n CALLS] [-z ZIPF] [-r RUNS] [-f FORMATS] [DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -x /usr/bin/time ] || { echo "export-bench: needs /usr/bin/time (package time)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/ng-export-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
dir=${1:-$work/rec}
make -s -C "$ROOT/userspace" >/dev/null
gcc -O2 -Wall -Wextra -Werror -o "$work/genrec" "$ROOT/tools/genrec.c" -lm
if ! ls "$dir"/*.txt >/dev/null 2>&1; then
	mkdir -p "$dir"
	"$work/genrec" "$dir" "$calls" 4 2000 32 "$zipf"
fi
in_bytes=$(cat "$dir"/*.txt | wc -c)
echo "# $calls calls, 4 threads, 2000 functions (Zipf $zipf), $in_bytes bytes of push/pop files; $(nproc) CPUs"
echo "| export | file | bytes/call | time (median of $runs) | calls/s | max RSS |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for fmt in $formats; do
	out=$dir/bench.$fmt
	times=() rss=0 size=0
	for ((i = 0; i < runs; i++)); do
		sync
		/usr/bin/time -f "%e %M" -o "$work/time" \
			"$ROOT/userspace/nanograph" export "--$fmt" -o "$out" "$dir"
		read -r t m <"$work/time"
		times+=("$t")
		[ "$m" -gt "$rss" ] && rss=$m
		size=$(stat -c %s "$out")
		rm -f "$out"
	done
	t=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
	awk -v f="--$fmt" -v s="$size" -v n="$calls" -v t="$t" -v r="$rss" -v all="${times[*]}" 'BEGIN {
		printf "| `%s` | %.2f GB | %.1f | %.2f s (%s) | %.1f M | %.1f MB |\n",
			f, s / 1e9, s / n, t, all, n / t / 1e6, r / 1024 }'
done
