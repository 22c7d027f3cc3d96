#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's ftracetest (the ftrace selftests of the booted kernel's
# source, copied into the guest by tools/vmtest.sh) with a per-case
# watchdog, and write one line per case:
#
#   ftrace-run.sh OUTDIR [CASE.tc...]     (cases relative to test.d/;
#                                          default: all of them)
#
# OUTDIR/results:  "cases N SECONDS", then "KEY RESULT SECONDS DESCRIPTION"
#                  per case in ftracetest's order.  KEY is the case's path
#                  under test.d/, with "@instance" for its second run in
#                  an instance (descriptions are not unique); RESULT is
#                  what ftracetest printed (PASS, FAIL, UNRESOLVED,
#                  UNSUPPORTED, ...) or TIMEOUT; SECONDS the case's time.
# OUTDIR/logs/     ftracetest's logs (kept for cases that did not pass);
# OUTDIR/hang-N.*  what the watchdog saw when case N stopped making
#                  progress: the processes, their kernel stacks, sysrq-t/l.
#
# A case that prints no result for FT_CASE_TIMEOUT seconds (default 300)
# is dumped and its processes killed; ftracetest then reports it failed
# and goes on with the next one.  If killing does not unstick it, the
# whole run is killed after another FT_CASE_TIMEOUT.

out=${1:?usage: ftrace-run.sh OUTDIR [ftracetest args]}
shift
FT=${FT:-/nanograph/ftrace}
limit=${FT_CASE_TIMEOUT:-300}

now() { cut -d' ' -f1 /proc/uptime; }
# elapsed A B: whole seconds from A to B (uptime values)
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%d", b - a }'; }

# children PID: the pids whose parent is PID.
children() {
	for s in /proc/[0-9]*/stat; do
		read -r p _ _ pp _ <"$s" 2>/dev/null && [ "$pp" = "$1" ] && echo "$p"
	done
}

# tree PID: PID's descendants, deepest first (PID itself not included).
tree() {
	for c in $(children "$1"); do
		tree "$c"
		echo "$c"
	done
}

# dump N: what the stuck case N is doing.
dump() {
	f=$out/hang-$1
	for p in $(tree "$ftpid"); do
		echo "== $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
		grep -E '^(State|Cpus_allowed_list):' "/proc/$p/status" 2>/dev/null
		cat "/proc/$p/stack" 2>/dev/null
	done >"$f.procs"
	dmesg -c >/dev/null
	echo t >/proc/sysrq-trigger
	echo l >/proc/sysrq-trigger
	sleep 1
	dmesg >"$f.sysrq"
	cat /sys/kernel/tracing/tracing_on /sys/kernel/tracing/current_tracer \
		/sys/kernel/tracing/set_event 2>/dev/null >"$f.ftrace"
	[ ! -d /sys/kernel/nanograph ] || cat /sys/kernel/nanograph/stats >"$f.nanograph" 2>&1
}

rm -rf "$out"
mkdir -p "$out"
: >"$out/stamped"
# ftracetest numbers the cases in the order given, then the instance runs
# of those flagged "instance" in the same order: the keys, by number.
if [ $# = 0 ]; then
	# shellcheck disable=SC2046 # case paths have no spaces
	set -- $(cd "$FT/test.d" && find . -name '*.tc' | sed 's|^\./||' | sort)
fi
for c in "$@"; do echo "$c"; done >"$out/keys"
for c in "$@"; do
	! grep -q '^#[ 	]*flags:.*instance' "$FT/test.d/$c" || echo "$c@instance"
done >>"$out/keys"
start=$(now)
# Each line of ftracetest's output stamped with the time it was
# complete: a case's line ends when its result is printed.
# shellcheck disable=SC2046 # case paths have no spaces
{
	sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$out/pid" \
		"$FT/ftracetest" -l "$out/logs" $(for c in "$@"; do echo "$FT/test.d/$c"; done) 2>&1 |
		while IFS= read -r line; do
			echo "$(now) $line"
		done >"$out/stamped"
} &
runner=$!
while [ ! -s "$out/pid" ]; do sleep 0.1; done
ftpid=$(cat "$out/pid")

seen=0 since=$start strikes=0
while kill -0 "$runner" 2>/dev/null; do
	sleep 2
	n=$(wc -l <"$out/stamped")
	t=$(now)
	if [ "$n" != "$seen" ]; then
		seen=$n since=$t strikes=0
		continue
	fi
	[ "$(elapsed "$since" "$t")" -ge "$limit" ] || continue
	case=$(($(grep -c '^[0-9.]* \[[0-9]*\]' "$out/stamped") + 1))
	strikes=$((strikes + 1))
	since=$t
	echo "case $case: no result for ${limit}s" >>"$out/hung"
	dump "$case"
	if [ "$strikes" = 1 ]; then
		echo "$case" >>"$out/killed"
		# shellcheck disable=SC2046 # pids
		kill -9 $(tree "$ftpid") 2>/dev/null
	else
		echo "case $case: still stuck; killing ftracetest" >>"$out/hung"
		# shellcheck disable=SC2046 # pids
		kill -9 $(tree "$ftpid") "$ftpid" 2>/dev/null
		break
	fi
done
wait "$runner"
end=$(now)

# One line per case; a killed case is a TIMEOUT whatever ftracetest said.
killed=$(tr '\n' ' ' 2>/dev/null <"$out/killed")
sed -n 's/^\([0-9.]*\) \[\([0-9]*\)\]\(.*\)[[:space:]]\[\([A-Z]*\)\]$/\1 \2 \4 \3/p' \
	"$out/stamped" | awk -v s="$start" -v killed=" $killed " -v keys="$out/keys" '
	BEGIN { while ((getline k <keys) > 0) key[++n] = k }
	{
		t = $1; i = $2; r = $3
		$1 = $2 = $3 = ""
		sub(/^ +/, "")
		if (index(killed, " " i " "))
			r = "TIMEOUT"
		printf "%s %s %.1f %s\n", key[i], r, t - s, $0
		s = t
	}' >"$out/cases"
echo "cases $(wc -l <"$out/cases") $(elapsed "$start" "$end")" >"$out/results"
cat "$out/cases" >>"$out/results"
