#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot each architecture once and, in that one boot, run the
# same syscall-heavy workload (one-byte reads of /dev/zero) with the same
# function filter under no tracer, the function tracer, function_graph,
# and nanograph in each buffer mode (tools/bench-guest.sh).  Prints, per
# architecture, a table of medians and spreads and the ratios to
# function_graph.  A benchmark, never a test: nothing here passes or fails
# on a number.
#
#   tools/bench.sh [-a "ARCHES"] [-k LINE] [-n ITERATIONS] [-r ROUNDS] [-f FORKS]
#
# Defaults: -a "x86_64 arm64" -k 6.12 -n 20000 -r 7 -f 20.  Then, in the
# same boot, the whole kernel: every function hooked, every task traced,
# FORKS children that fork, exec, and write and read a pipe and a file
# (-f 0 leaves it out).  The raw lines and the tables of each boot are
# kept in build/bench/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCHES="x86_64 arm64" LINE=6.12 ITER=20000 ROUNDS=7 FORKS=20
while getopts "a:k:n:r:f:" opt; do
	case "$opt" in
	a) ARCHES=$OPTARG ;;
	k) LINE=$OPTARG ;;
	n) ITER=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	f) FORKS=$OPTARG ;;
	*) echo "usage: $0 [-a ARCHES] [-k LINE] [-n ITERATIONS] [-r ROUNDS] [-f FORKS]" >&2; exit 2 ;;
	esac
done
OUT=$ROOT/build/bench
VMOUT=${NANOGRAPH_OUT:-$ROOT/build/vm}
mkdir -p "$OUT"

"$ROOT/tools/setup-host.sh"

# What both tables' awk programs share: the "KIND ROUND MODE NS CALLS
# EVENTS LOST" lines of one kind (awk -v kind=), the median, and per mode
# over the rounds the times t[1..n], calls c[], events e[], the most lost
# (maxlost), and the cost of each round against that round's untraced
# run, cost[1..k] with its lowest lo and highest hi: the time added per
# traced call (percall; from the BEST field, the workload's pace in its
# fastest slice, when the lines have one) or in milliseconds.
AWK_ROUNDS='
$1 == kind { ns[$2, $3] = $4; calls[$2, $3] = $5; ev[$2, $3] = $6; lost[$2, $3] = $7
	if (NF >= 8) best[$2, $3] = $8
	if (!($3 in seen)) { seen[$3] = 1; order[++nm] = $3 }
	if ($2 > rounds) rounds = $2 }
# The time of MODE in round R at the pace of its fastest slice where both
# it and the untraced run of R have one, else the whole loop.
function pace(r, mode) {
	return ((r, mode) in best) && ((r, "none") in best) ? best[r, mode] : ns[r, mode]
}
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function mode_stats(mode, percall,   r, a) {
	n = 0; k = 0; lo = hi = ""; maxlost = 0
	for (r = 1; r <= rounds; r++) {
		if (!((r, mode) in ns)) continue
		t[++n] = ns[r, mode]; c[n] = calls[r, mode]; e[n] = ev[r, mode]
		if (lost[r, mode] > maxlost) maxlost = lost[r, mode]
		# Streaming runs (nanograph record, trace-cmd) share the CPUs
		# with their reader: a time to compare among them, not a cost.
		if (mode == "none" || mode ~ /^(record|tracecmd)/ || !((r, "none") in ns)) continue
		if (percall && calls[r, mode] <= 0) continue
		# Per call at the pace of the fastest slice (pace()).
		a = percall ? (pace(r, mode) - pace(r, "none")) / calls[r, mode] : (ns[r, mode] - ns[r, "none"]) / 1e6
		cost[++k] = a
		if (lo == "" || a < lo) lo = a
		if (hi == "" || a > hi) hi = a
	}
}'

# The table of one boot's lines: per mode the median workload time, the
# median added cost per traced call (this round's time minus this round's
# untraced time, over the calls, both at their fastest slice's pace) with
# its min..max over the rounds, and
# the cost as a fraction of function_graph's and of function's.
table() {
	awk -v kind=run "$AWK_ROUNDS"'
	$1 == "funcs" { $1 = ""; funcs = $0 }
	$1 == "mem" { mem[$2] = $3 }
	$1 == "calib" { calib = $2; calib_in = $3 }
	END {
		printf "filter:%s\n", funcs
		printf "%-15s %6s %10s %9s %7s %12s %14s %8s %8s\n", "mode", "rounds", "calls", "events", "lost",
			"time ms", "ns/call", "vs fgraph", "vs function"
		for (m = 1; m <= nm; m++) {
			mode = order[m]
			mode_stats(mode, 1)
			med[mode] = k ? median(cost, k) : ""
			line[mode] = sprintf("%-15s %6d %10d %9d %7d %12.1f", mode, n, median(c, n), median(e, n),
				maxlost, median(t, n) / 1e6)
			range[mode] = k ? sprintf("%5.0f (%.0f..%.0f)", med[mode], lo, hi) : "-"
		}
		for (m = 1; m <= nm; m++) {
			mode = order[m]
			vg = (med[mode] != "" && med["function_graph"] > 0) ? sprintf("%.2f", med[mode] / med["function_graph"]) : "-"
			vf = (med[mode] != "" && med["function"] > 0) ? sprintf("%.2f", med[mode] / med["function"]) : "-"
			printf "%s %14s %8s %8s\n", line[mode], range[mode], vg, vf
		}
		# The scheduling records on (options/sched), against raw alone.
		if (med["ng_raw"] > 0 && med["ng_raw_sched"] != "")
			printf "sched: options/sched on costs %.2fx raw per call\n",
				med["ng_raw_sched"] / med["ng_raw"]
		# The faults and switches of each call (options/counters), the same.
		if (med["ng_raw"] > 0 && med["ng_raw_counters"] != "")
			printf "counters: options/counters on costs %.2fx raw per call\n",
				med["ng_raw_counters"] / med["ng_raw"]
		# Arguments, return values, call sites (options/args, retval,
		# retaddr), the same.
		if (med["ng_raw"] > 0 && med["ng_raw_retval"] != "")
			printf "values: options/retval %.2fx raw per call, options/args %.2fx, options/retaddr %.2fx\n",
				med["ng_raw_retval"] / med["ng_raw"], med["ng_raw_args"] / med["ng_raw"],
				med["ng_raw_retaddr"] / med["ng_raw"]
		# The direct path against the ops path (options/direct), raw.
		if (med["ng_raw"] > 0 && med["ng_raw_ops"] != "")
			printf "paths: raw through the direct trampoline costs %.2fx raw through the ops callback per call\n",
				med["ng_raw"] / med["ng_raw_ops"]
		# BPF fentry + fexit on the same functions (ngbpf pair: a map
		# count each, no record), the design issue 32 measured against.
		if (med["ng_raw"] > 0 && med["bpf_pair"] > 0)
			printf "bpf: an fentry+fexit pair costs %.2fx function per call; ng_raw costs %.2fx the pair, ng_hook_only %.2fx\n",
				med["bpf_pair"] / med["function"], med["ng_raw"] / med["bpf_pair"],
				med["ng_hook_only"] / med["bpf_pair"]
		# The flight recorder armed and waiting, against raw recording.
		if (med["ng_raw"] > 0 && med["ng_flight"] != "" && med["ng_flight_full"] != "")
			printf "flight: armed %.2fx raw per call, armed and overwriting %.2fx raw\n",
				med["ng_flight"] / med["ng_raw"], med["ng_flight_full"] / med["ng_raw"]
		# A time trigger armed: the clocks kept, against a wall-time one.
		if (med["ng_flight"] > 0 && med["ng_flight_clocks"] != "")
			printf "clocks: a time trigger armed costs %.2fx a wall-time one per call\n",
				med["ng_flight_clocks"] / med["ng_flight"]
		# --compensate: in each round, the ng_raw time less its calls
		# times the cost record calibrated, against the untraced time,
		# both at the pace of their fastest slice (pace()), as the costs are.
		if (calib != "" && ("ng_raw" in seen)) {
			k = 0
			for (r = 1; r <= rounds; r++)
				if (((r, "ng_raw") in ns) && ((r, "none") in ns)) {
					k++
					u = pace(r, "none")
					raw[k] = (pace(r, "ng_raw") - u) * 100 / u
					rest[k] = (pace(r, "ng_raw") - calls[r, "ng_raw"] * calib - u) * 100 / u
				}
			if (k)
				printf "compensation: record calibrated %d ns per call (%d inside the call); ng_raw less its calls x %d ns is %+.1f%% off the untraced time, %+.1f%% uncompensated (medians of %d rounds)\n", \
					calib, calib_in, calib, median(rest, k), median(raw, k), k
		}
		if (mem["traced_tasks"] > 0) {
			printf "memory: %d traced tasks hold %d bytes of shadow stacks (%d per task); ", \
				mem["traced_tasks"], mem["retstack_bytes"] - mem["retstack_idle_bytes"], \
				(mem["retstack_bytes"] - mem["retstack_idle_bytes"]) / mem["traced_tasks"]
			printf "with nothing traced: %d bytes\n", mem["retstack_idle_bytes"]
		}
		for (k2 in mem) printf "mem %s %s\n", k2, mem[k2]
	}'
}

# The switch cost: per round, ping-pong's time with options/sched on less
# its time with it off, over the scheduling records written (out, wake
# and in for each sleep) and over the sleeps (two a round trip); the
# medians over the rounds.
sw_table() {
	awk '$1 == "srun" { ns[$2, $3] = $4; trips[$2] = $5; if ($3 == "sched_on") recs[$2] = $6 }
	END {
		k = 0
		for (r in trips)
			if (((r, "sched_off") in ns) && ((r, "sched_on") in ns) && recs[r] > 0) {
				k++
				off[k] = ns[r, "sched_off"] / 1e6; on[k] = ns[r, "sched_on"] / 1e6
				d = ns[r, "sched_on"] - ns[r, "sched_off"]
				per_rec[k] = d / recs[r]; per_sleep[k] = d / (2 * trips[r]); nrec[k] = recs[r]
				t = trips[r]
			}
		if (!k) exit
		printf "switches: %d round trips of ping-pong (%d sleeps), %d rounds: %.1f ms with options/sched off, %.1f ms on, %d records; %.0f ns per scheduling record, %.0f ns per sleep and wake\n", \
			t, 2 * t, k, med(off, k), med(on, k), med(nrec, k), med(per_rec, k), med(per_sleep, k)
	}
	function med(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}'
}

# The whole-kernel table: per mode the median workload time, the median
# time added to the untraced run of the same round, with its min..max,
# and that added time as a fraction of function_graph's.  Calls and
# events are the medians, lost the most of any round.
wk_table() {
	awk -v kind=wrun "$AWK_ROUNDS"'
	END {
		if (!nm) exit
		printf "%-15s %6s %10s %10s %9s %10s %20s %9s\n", "mode", "rounds", "calls", "events", "lost",
			"time ms", "added ms", "vs fgraph"
		for (m = 1; m <= nm; m++) {
			mode = order[m]
			mode_stats(mode, 0)
			med[mode] = k ? median(cost, k) : ""
			line[mode] = sprintf("%-15s %6d %10d %10d %9d %10.1f", mode, n, median(c, n), median(e, n),
				maxlost, median(t, n) / 1e6)
			range[mode] = k ? sprintf("%.0f (%.0f..%.0f)", med[mode], lo, hi) : "-"
		}
		for (m = 1; m <= nm; m++) {
			mode = order[m]
			vg = (med[mode] != "" && med["function_graph"] > 0) ? sprintf("%.2f", med[mode] / med["function_graph"]) : "-"
			printf "%s %20s %9s\n", line[mode], range[mode], vg
		}
		# A return-value trigger armed: every exit looked at.
		if (med["ng_raw"] > 0 && med["ng_retval"] != "")
			printf "retval trigger armed: %.2fx raw'"'"'s added time\n",
				med["ng_retval"] / med["ng_raw"]
	}'
}

for arch in $ARCHES; do
	log=$OUT/$arch-$LINE.log
	echo "bench: $arch $LINE: $ITER reads x $ROUNDS rounds" >&2
	NANOGRAPH_BENCH="$ITER:$ROUNDS:$FORKS" "$ROOT/tools/vmtest.sh" -a "$arch" -k "$LINE" bench
	tr -d '\r' <"$VMOUT/$arch-$LINE/console.log" |
		awk '$0 == "NANOGRAPH-BENCH-END" { on = 0 } on { print } $0 == "NANOGRAPH-BENCH-BEGIN" { on = 1 }' >"$log"
	if ! grep -q '^run ' "$log"; then
		echo "bench: $arch: no results; see $VMOUT/$arch-$LINE/console.log" >&2
		cat "$log" >&2
		exit 1
	fi
	{
		echo "== $arch, Debian $LINE ($(sed -n 's/^nanograph-vm: \([^ ]*\) .*/\1/p' "$VMOUT/$arch-$LINE/console.log" | tr -d '\r' | head -n 1)), $ITER reads x $ROUNDS rounds"
		table <"$log"
		sw_table <"$log"
		if grep -q '^wrun ' "$log"; then
			echo "-- whole kernel: every function hooked, every task traced, $FORKS forks (every other one execs)"
			wk_table <"$log"
		fi
	} | tee "$OUT/$arch-$LINE.txt"
	grep '^#' "$log" >&2 || :
done
echo "bench: reproduce with: make bench (tools/bench.sh -a \"$ARCHES\" -k $LINE -n $ITER -r $ROUNDS -f $FORKS)"
