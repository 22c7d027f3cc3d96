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
# the median and the best run's time (and calls/s), the median CPU time
# (user + system, all threads), and the largest max RSS of the runs. The
# load average before each format is printed too: wall times on a shared
# machine follow what else runs, CPU times much less. The output
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
echo "| export | file | bytes/call | time: median (best) | calls/s: median (best) | CPU time | max RSS |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for fmt in $formats; do
	out=$dir/bench.$fmt
	times=() cpus=() rss=0 size=0
	echo "# --$fmt: load average $(cut -d' ' -f1-3 /proc/loadavg) before" >&2
	for ((i = 0; i < runs; i++)); do
		sync
		/usr/bin/time -f "%e %M %U %S" -o "$work/time" \
			"$ROOT/userspace/nanograph" export "--$fmt" -o "$out" "$dir"
		read -r t m u s <"$work/time"
		times+=("$t")
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
		[ "$m" -gt "$rss" ] && rss=$m
		size=$(stat -c %s "$out")
		rm -f "$out"
	done
	echo "# --$fmt: wall ${times[*]} s, CPU ${cpus[*]} s" >&2
	mid=$(((runs + 1) / 2))
	t=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "${mid}p")
	b=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 1p)
	c=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "${mid}p")
	awk -v f="--$fmt" -v s="$size" -v n="$calls" -v t="$t" -v b="$b" -v c="$c" -v r="$rss" 'BEGIN {
		printf "| `%s` | %.2f GB | %.1f | %.2f s (%.2f s) | %.1f M (%.1f M) | %.2f s | %.1f MB |\n",
			f, s / 1e9, s / n, t, b, n / t / 1e6, n / b / 1e6, c, r / 1024 }'
done
