#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Where a traced call's time goes, instruction by instruction: boot ARCH's
# kernel in QEMU with tools/tbcount.c (a TCG plugin counting the guest
# instructions each translation block runs), run the benchmark's read
# loop untraced, under function and function_graph and under nanograph
# (hook only, raw, raw with each of the values' options), and print per
# mode the instructions each kernel function added per traced call,
# against the untraced run.
#
#   tools/profile.sh [-a ARCH] [-k LINE] [-n READS] [-t ROWS] [-c CPUS]
#
# Instructions, not time: under TCG a guest instruction costs about the
# same, but helpers (counter reads, atomics, barriers) and block exits
# cost more; make bench gives the time.  Not a test.  The counts are the
# whole guest's between two markers: with more than one CPU, a CPU
# spinning on a lock whose holder's CPU QEMU is not running (one thread
# runs every CPU in turn) adds its spins to the phase (seen on 32-bit
# arm: _raw_read_lock); -c 1 boots one CPU.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCH=x86_64 LINE=6.12 N=20000 ROWS=25 SMP=
while getopts a:k:n:t:c:h o; do
	case $o in
	a) ARCH=$OPTARG ;;
	k) LINE=$OPTARG ;;
	n) N=$OPTARG ;;
	t) ROWS=$OPTARG ;;
	c) SMP="-smp $OPTARG" ;;
	*) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

P=$ROOT/build/profile/$ARCH-$LINE
rm -rf "$P"
mkdir -p "$P/ctl"
cc -Wall -Wextra -Werror -O2 -shared -fPIC -o "$P/tbcount.so" \
	"$ROOT/tools/tbcount.c" -lpthread

NANOGRAPH_PROFILE=$N NANOGRAPH_QEMU_EXTRA="-plugin $P/tbcount.so,dir=$P/ctl $SMP" \
	"$ROOT/tools/vmtest.sh" -a "$ARCH" -k "$LINE" profile >"$P/vmtest.log" 2>&1 &
vm=$!
trap 'kill $vm 2>/dev/null || :' EXIT INT TERM

# The console log is the cell's; wait for this boot's to appear.
log=
while [ -z "$log" ]; do
	kill -0 $vm 2>/dev/null || { cat "$P/vmtest.log" >&2; exit 1; }
	log=$(sed -n 's/^vmtest: booting .* (log: \(.*\))$/\1/p' "$P/vmtest.log")
	sleep 1
done

# Follow the markers: reset the counts at each phase's start, keep them
# at its end.
seen=0
while kill -0 $vm 2>/dev/null; do
	tr -d '\r' <"$log" 2>/dev/null | grep '^NG-PROFILE-\(RESET\|DUMP\) ' |
		tail -n +$((seen + 1)) >"$P/new" || :
	while read -r what mode; do
		seen=$((seen + 1))
		case $what in
		NG-PROFILE-RESET) : >"$P/ctl/reset" ;;
		NG-PROFILE-DUMP)
			: >"$P/ctl/dump"
			until [ -e "$P/ctl/tb.txt" ]; do sleep 0.1; done
			mv "$P/ctl/tb.txt" "$P/$mode.tb" ;;
		esac
	done <"$P/new"
	sleep 0.2
done
trap - EXIT INT TERM
wait $vm || :
tr -d '\r' <"$log" >"$P/console.log"
[ -e "$P/ng_raw.tb" ] || { tail -20 "$P/console.log" >&2; exit 1; }

# Symbols as 16 hex digits, so that sorting text sorts addresses.
awk '/^NG-PROFILE-SYMS-BEGIN$/ { on = 1; next } /^NG-PROFILE-SYMS-END$/ { on = 0 }
	on && NF == 2 { a = $1; while (length(a) < 16) a = "0" a; print a, "S", $2 }' \
	"$P/console.log" >"$P/syms"

# per_function MODE: "FUNCTION INSTRUCTIONS" of one phase, user space as
# one line.
per_function() {
	awk '{ print $1, "T", $2 * $3 }' "$P/$1.tb" | sort - "$P/syms" |
		awk '$2 == "S" { f = $3; next }
			{ n[f == "" ? "(user)" : f] += $3 }
			END { for (f in n) print f, n[f] }'
}

per_function none >"$P/none.fn"
calls() { sed -n "s/^NG-PROFILE-CALLS $1 //p" "$P/console.log"; }
echo "== $ARCH $LINE: guest instructions added per traced call, $N reads"
echo "   ($(sed -n 's/^NG-PROFILE-FUNCS //p' "$P/console.log"))"
for m in function function_graph ng_hook_only ng_raw ng_raw_ops ng_raw_retval ng_raw_args ng_raw_retaddr; do
	[ -e "$P/$m.tb" ] || continue
	c=$(calls $m)
	per_function $m | awk -v c="${c:-0}" -v m=$m -v rows="$ROWS" '
		FNR == NR { base[$1] = $2; next }
		{ d = $2 - base[$1]; t += d; if (d > 0) add[$1] = d }
		END {
			if (c <= 0) { print m ": no calls counted"; exit }
			printf "\n%-16s %8.1f per call (%d calls)\n", m, t / c, c
			for (f in add) printf "%10.1f  %s\n", add[f] / c, f | "sort -rn | head -n " rows
		}' "$P/none.fn" -
done
