#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: host unit tests, then the VM matrix, one summary line.
#
#   tools/check.sh [--unit-only | --vm-only | --plan]
#
# --plan prints which cells boot and what each runs, and boots nothing.
#
# NANOGRAPH_CHECK=core (make check, the default) boots every stock cell
# with the core tests ("# tier: core") and gives each other test to one
# cell of each architecture ("# rotation: matrix": one cell of the whole
# matrix), the choice moving with the commit (the rotation, printed;
# NANOGRAPH_ROTATION=N repeats one), "tier: core+full" tests running at
# full size there; patched cells run only when their kernel is built
# (make patched-kernels), and then only their current_tracer tests
# ("tier: core patched").  NANOGRAPH_CHECK=full (make
# check-full): every test in every cell, the "scope: arch" ones in each
# architecture's first cell and on FULL_LINES, patched kernels built
# when missing (Documentation/testing.md).
#
# NANOGRAPH_MATRIX overrides the boots, e.g. "x86_64:6.1 arm64:6.12";
# a cell is ARCH[/MACHINE]:LINE[:TESTS], TESTS being comma-separated
# globs of selftests/vm/tests (all when left out).
# KERNELS (make check KERNELS="x86_64-7.2 arm64-sid") keeps the cells of
# the matrix named by ARCH-LINE or ARCH-VERSION, VERSION the start of the
# upstream version the line resolves to today (7.2 for sid's 7.2.13).
# NANOGRAPH_JOBS how many boot at once (default 2).
# The last line is "N passed, N failed"; the exit status is 0 only when
# nothing failed.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Every kernel line of tools/vmtest.sh (Documentation/kernels.md) on the
# three architectures, the longest cell (x86_64 6.1: ftracetest) first,
# and a Cortex-A9 board (no generic timer: the arm module's fallback
# counter) with what proves it loads, keeps time and records.  A line
# trixie-backports that carries sid's very kernel, and lines the archive
# has not for an architecture, are skipped (cell_skip).
if [ -z "${NANOGRAPH_MATRIX:-}" ]; then
	MATRIX=""
	for line in $("$ROOT/tools/vmtest.sh" list | sed -n 's/^kernel lines: *//p'); do
		for arch in x86_64 arm64 arm; do
			MATRIX="$MATRIX $arch:$line"
		done
	done
	MATRIX="$MATRIX arm/vexpress-a9:6.12:00-*,03-*,09-*,10-*,21-*"
	# The kernel with kernel-patches/ (nanograph as an ftrace tracer),
	# built once per architecture by tools/kernel-build.sh.
	for arch in $("$ROOT/tools/vmtest.sh" list | sed -n 's/^patched lines: patched on \(.*\) (.*/\1/p'); do
		MATRIX="$MATRIX $arch:patched"
	done
else
	MATRIX=$NANOGRAPH_MATRIX
fi
# How long each cell took last time (seconds), to boot the longest first.
CELL_TIMES=${NANOGRAPH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nanograph}/cell-seconds
# Lines whose cells run every test, "scope: arch" ones included: 6.1,
# whose cells are also each architecture's first (make soak runs the long
# scenarios on 6.12 at full size; NANOGRAPH_FULL_LINES="6.1 6.12" adds
# its cells here).
FULL_LINES=${NANOGRAPH_FULL_LINES:-"6.1"}
CHECK_MODE=${NANOGRAPH_CHECK:-core}
case "$CHECK_MODE" in core | full) ;; *) echo "NANOGRAPH_CHECK=$CHECK_MODE: core or full" >&2; exit 2 ;; esac
# Cells hold globs: never expand them against the current directory.
set -f
unit=1 vm=1 plan=0
case "${1:-}" in
--unit-only) vm=0 ;;
--vm-only) unit=0 ;;
--plan) unit=0 plan=1 ;;
"") ;;
*) echo "usage: $0 [--unit-only|--vm-only|--plan]" >&2; exit 2 ;;
esac

pass=0 fail=0 skip=0

# Each failure and the first FAIL: line its test printed, shown again
# just above the last line: the end of a long log (all a CI page may
# keep) says what failed and why.
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT

# Count the KTAP result lines of one suite's output, echoing them, and
# note the failures.
tally() {
	local line why=
	while IFS= read -r line; do
		echo "$line"
		case "$line" in
		"ok "*"# SKIP"*) skip=$((skip + 1)) why= ;;
		"ok "*) pass=$((pass + 1)) why= ;;
		"not ok "*)
			fail=$((fail + 1))
			echo "# $line" >>"$failures"
			why=1
			;;
		*FAIL:*)
			[ -z "$why" ] || echo "#   ${line#"${line%%FAIL:*}"}" >>"$failures"
			why=
			;;
		esac
	done
}

[ "$plan" = 1 ] || "$ROOT/tools/setup-host.sh" || { echo "0 passed, 1 failed"; exit 1; }
start=$(date +%s)

# The host's own checks: the collector's unit tests (sanitizers), lint,
# DKMS, the rig's and the man pages' checks.  Prints KTAP lines.
host_checks() {
	local out rc
	echo "# host unit tests"
	out=$(mktemp)
	if make -s -C "$ROOT/userspace" check >"$out" 2>&1; then rc=0; else rc=$?; fi
	cat "$out"
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$out"; then
		# The build or the runner itself failed: that is a failure too.
		echo "not ok - unit tests: make -C userspace check exited $rc"
		tail -n 20 "$out" | sed 's/^/# /'
	fi
	rm -f "$out"
	echo "# lint"
	"$ROOT/tools/lint.sh" 2>&1
	echo "# dkms"
	"$ROOT/tools/dkms-check.sh" 2>&1
	echo "# rig"
	"$ROOT/tools/rig-check.sh" 2>&1
	echo "# man"
	"$ROOT/tools/man-check.sh" 2>&1
}

# With the VM matrix they run beside its first cells and are counted
# after them: run first, they kept both cores' guests waiting about two
# and a half minutes; beside them they take a share of the same cores.
# Alone (--unit-only), at once.
host_out=
if [ "$unit" = 1 ] && [ "$vm" = 1 ]; then
	host_out=$(mktemp)
	host_checks >"$host_out" 2>&1 &
	host_pid=$!
elif [ "$unit" = 1 ]; then
	# Not a pipe: tally must count in this shell, not a subshell.
	tally < <(host_checks)
fi

# vmtest.sh's options for a cell ARCH[/MACHINE]:LINE[:TESTS], in $opts.
cell_opts() {
	local am=${1%%:*} rest=${1#*:}
	opts=(-a "${am%%/*}" -k "${rest%%:*}")
	[ "$am" = "${am#*/}" ] || opts+=(-m "${am#*/}")
	[ "$rest" = "${rest#*:}" ] || opts+=(-t "${rest#*:}")
}

# A cell's name as a file name in $work.
cell_file() {
	echo "$work/$(printf '%s' "$1" | tr '/:*,' '____')"
}

# The first cell of the matrix booting @cell's architecture (any machine).
first_of_arch() {
	local c arch=${1%%[:/]*}
	for c in $MATRIX; do
		[ "${c%%[:/]*}" = "$arch" ] && [ ! -e "$(cell_file "$c").skip" ] &&
			{ echo "$c"; return; }
	done
}

# Boot @cell's kernel and run the selftests; output to @cell's .out file,
# exit status to its .rc.
boot_cell() {
	local cell=$1 rc=0 f opts scope=kernel t0
	f=$(cell_file "$cell")
	cell_opts "$cell"
	# The "scope: arch" tests run in the first cell of each architecture
	# and on the FULL_LINES, the kernels the reliability scenarios are
	# promised on (Documentation/reliability.md).
	[ "$(first_of_arch "$cell")" != "$cell" ] || scope=""
	case " $FULL_LINES " in *" ${opts[3]} "*) scope="" ;; esac
	# make check: the cell's own list (core and its share of the
	# rotation), each test named, so no scope applies.
	local full=all
	if [ -e "$f.tests" ]; then
		opts+=(-t "$(cat "$f.tests")")
		full=$(cat "$f.full")
		scope=""
	fi
	# Parameters of the cell's tests (ftracetest's directories).
	local params=${NANOGRAPH_PARAMS:-}
	[ ! -e "$f.params" ] || params="$params $(cat "$f.params")"
	t0=$(date +%s)
	NANOGRAPH_FULL=$full NANOGRAPH_SCOPE=$scope NANOGRAPH_PARAMS=$params \
		"$ROOT/tools/vmtest.sh" "${opts[@]}" run >"$f.out" 2>&1 || rc=$?
	echo "$cell $(( $(date +%s) - t0 ))" >"$f.secs"
	# A newer line whose packages the archive lists but does not serve
	# (trixie's armmp: 404 here) is skipped like one it does not list;
	# the bookworm lines must always download.
	if [ "$rc" != 0 ] && ! grep -q '^ok\|^not ok' "$f.out" &&
	   ! case " $FULL_LINES " in *" ${opts[3]} "*) true ;; *) false ;; esac &&
	   grep -q 'vmtest: error: could not download' "$f.out"; then
		echo "ok - $cell # SKIP $(grep -m 1 'vmtest: error: could not download' "$f.out" | sed 's/^vmtest: error: //')" >"$f.out"
		rc=0
	fi
	echo "$rc" >"$f.rc"
}

# The upstream version cell ARCH:LINE resolves to today (7.2.13), or
# nothing when the archive has no such kernel for ARCH.
cell_version() {
	local r
	r=$("$ROOT/tools/vmtest.sh" "${opts[@]:0:4}" resolve 2>/dev/null) || return 0
	r=${r##* }
	echo "${r%%-*}"
}

# Does the KERNELS word @w name cell @cell (ARCH-LINE or ARCH-VERSION)?
kernels_match() {
	local w=$1 cell=$2 am line v
	am=${cell%%:*} line=${cell#*:}
	line=${line%%:*}
	[ "${w%%-*}" = "${am%%/*}" ] || return 1
	[ "${w#*-}" = "$line" ] && return 0
	cell_opts "$cell"
	v=$(cell_version)
	[ -n "$v" ] && case "$v." in "${w#*-}".*) return 0 ;; esac
	return 1
}

if [ -n "${KERNELS:-}" ]; then
	keep=""
	for cell in $MATRIX; do
		for w in $KERNELS; do
			if kernels_match "$w" "$cell"; then
				keep="$keep $cell"
				break
			fi
		done
	done
	[ -n "$keep" ] || { echo "KERNELS=\"$KERNELS\" names no cell of: $MATRIX" >&2; echo "0 passed, 1 failed"; exit 1; }
	MATRIX=$keep
fi

# Why cell @cell is not booted, or nothing: a line this archive does not
# publish for the architecture (a mirror may serve an index that does not
# verify), or trixie-backports carrying the very kernel sid has; or, in
# CI (CI=true) only, a patched kernel not built yet: building both on a
# new machine's empty cache (about an hour on 2 cores) would not fit
# CI's 90 minutes beside the rest; any other make check builds them, and
# CI runs on the machine of the session that submitted, with its cache.
cell_skip() {
	local cell=$1 v sv dir
	cell_opts "$cell"
	if [ "${opts[3]}" = patched ] && [ "$CHECK_MODE" = core ]; then
		dir=$("$ROOT/tools/kernel-build.sh" -a "${opts[1]}" -p 2>/dev/null)
		[ -e "$dir/.complete" ] || {
			echo "the patched kernel is not built: make patched-kernels builds it (about an hour on 2 cores), make check-full too"
			return 0
		}
	fi
	if [ "${opts[3]}" = patched ] && [ "${CI:-}" = true ]; then
		dir=$("$ROOT/tools/kernel-build.sh" -a "${opts[1]}" -p 2>/dev/null)
		[ -e "$dir/.complete" ] || {
			echo "CI on an empty cache: the patched kernel is not built (tools/kernel-build.sh -a ${opts[1]})"
			return 0
		}
	fi
	v=$(cell_version)
	if [ -z "$v" ]; then
		# The bookworm lines must resolve: their build then fails.
		case "${opts[3]}" in 6.1 | 6.12 | patched) return 0 ;; esac
		echo "the archive has no ${opts[3]} kernel for ${opts[1]} (or its index does not verify)"
		return 0
	fi
	if [ "${opts[3]}" = trixie-backports ]; then
		opts[3]=sid
		sv=$(cell_version)
		[ "$sv" != "$v" ] || echo "trixie-backports has sid's kernel, $v"
	fi
}

# The cells of MATRIX, those that took longest last time first; cells
# with no time yet (a new line: it downloads and builds) before them all,
# in MATRIX's order, and the one that runs ftracetest this time (the
# longest, wherever the rotation put it) next.
longest_first() {
	local cell t
	for cell in $MATRIX; do
		t=$(awk -v c="$cell" '$1 == c { t = $2 } END { print t }' "$CELL_TIMES" 2>/dev/null)
		grep -qs '\(^\|,\)34-' "$(cell_file "$cell").tests" && t=${t:+999998}
		echo "${t:-999999} $cell"
	done | sort -s -k1,1nr | cut -d' ' -f2
}

# Keep this run's cell times for the next run's order (a cell that did
# not boot keeps its old time).
record_times() {
	local new=$work/cell-seconds cell f
	mkdir -p "$(dirname "$CELL_TIMES")"
	: >"$new"
	for cell in $MATRIX; do
		f=$(cell_file "$cell").secs
		[ ! -f "$f" ] || cat "$f" >>"$new"
	done
	[ ! -f "$CELL_TIMES" ] || awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' \
		"$new" "$CELL_TIMES" >>"$new"
	mv "$new" "$CELL_TIMES"
}

# tree PID: PID and all its descendants, parents first.
tree() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree "$c"; done
}

# Stopped by a signal: take down every cell (vmtest.sh, its builds, and
# the QEMUs, which timeout(1) runs in process groups of their own, so a
# signal to this script's group would miss them).  Stopped first so that
# none starts another process meanwhile.
stop_cells() {
	local pids
	trap - INT TERM HUP
	pids=$(for j in $(jobs -p); do tree "$j"; done)
	# shellcheck disable=SC2086 # one word a pid
	if [ -n "$pids" ]; then
		kill -STOP $pids 2>/dev/null
		kill -TERM $pids 2>/dev/null
		kill -CONT $pids 2>/dev/null
	fi
	rm -rf "$work"
	echo "check: stopped by a signal; cells killed" >&2
	exit 130
}

# The rotation's number: NANOGRAPH_ROTATION, else the commit's (its
# first 7 hex digits), else 0.
rotation_seed() {
	local h
	if [ -n "${NANOGRAPH_ROTATION:-}" ]; then
		echo "$NANOGRAPH_ROTATION"
		return
	fi
	h=$(git -C "$ROOT" rev-parse --short=7 HEAD 2>/dev/null) || h=0
	echo $((16#${h:-0}))
}

# A test's tier: core, core+full, or nothing (it rotates); then, as a
# second word, "patched" when its subject is what kernel-patches/ adds
# (current_tracer): make check's patched cells run only those.
tier_of() {
	sed -n 's/^# tier: *//p' "$1"
}

# How long each test took in a cell of an architecture: "ARCH TEST
# SECONDS" lines of the table in the tree (selftests/vm/test-seconds),
# unknown tests 20 s.  Only that table, not this machine's last run
# (TEST_TIMES, kept by keep_test_times: copy it over the table to
# refresh it), so that a commit's rotation is the same wherever it runs.
TEST_TIMES=${CELL_TIMES%/*}/test-seconds
test_secs() {
	awk -v a="$1" -v t="$2" '$1 == a && $2 == t { print $3; exit }' \
		"$ROOT/selftests/vm/test-seconds" | grep . || echo 20
}

# A test's "# rotation:" line: "matrix" when its subject is the module's
# or the collector's logic that no architecture's code takes part in
# (filters, pid lists, the end of a recording): make check gives it to
# one cell of the whole matrix; otherwise one cell of each architecture.
rotation_of() {
	sed -n 's/^# rotation: *//p' "$1"
}

# make check's lists: each stock cell that boots gets the core tests,
# each patched one the current_tracer tests; each other test (and each
# core+full one, at full size) goes to one cell of each architecture, or
# of the whole matrix ("# rotation: matrix").  The cells are balanced by
# the tests' times in the tree's table (longest first, each to the cell
# it leaves least loaded), starting from an order of the cells shifted
# by the rotation's number, so that the whole assignment moves with the
# commit and over a few commits every test meets every kernel.
# ftracetest (34) in one x86_64 cell, moving with the number too, a
# third of its cases by the number (the cell's .params).  Writes each cell's
# comma-separated globs to its .tests file and its full-size tests'
# numbers to its .full file; a cell with a list of its own in
# NANOGRAPH_MATRIX (the Cortex-A9 board) keeps it.
plan_rotation() {
	local seed t t_tier name tier scope arch c f shift ft_cell what
	local -a cells
	seed=$(rotation_seed)
	echo "# rotation $seed (NANOGRAPH_ROTATION=$seed make check repeats it)"
	for c in $MATRIX; do
		f=$(cell_file "$c")
		[ ! -e "$f.skip" ] || continue
		cell_opts "$c"
		[ "${#opts[@]}" -le 4 ] || continue	# a list of its own
		: >"$f.tests"
		echo 0 >"$f.full"
	done
	: >"$work/rotating"
	for t in $(set +f; ls "$ROOT"/selftests/vm/tests/*.tc); do
		name=$(basename "$t" .tc)
		tier=$(tier_of "$t")
		for c in $MATRIX; do
			f=$(cell_file "$c")
			[ -e "$f.tests" ] || continue
			# A patched cell is the 6.12 line's kernel with
			# kernel-patches/: the stock 6.12 cells run the rest
			# of the core on that source, make check-full all of it
			# here.
			case $c in
			*:patched) case " $tier " in *" patched "*) ;; *) continue ;; esac ;;
			*) case $tier in core*) ;; *) continue ;; esac ;;
			esac
			printf '%s-*,' "${name%%-*}" >>"$f.tests"
		done
		case $tier in
		core | "core "*) ;;
		*) t_tier=${tier%% *}
		   echo "$name ${t_tier:-none} $(rotation_of "$t")" >>"$work/rotating" ;;
		esac
	done
	: >"$work/rotation"
	# ftracetest (34) in one x86_64 stock cell, the line moving with the
	# rotation number (its remainder by 3 picks the third of the cases,
	# the rest the line), or in the first cell NANOGRAPH_FTRACETEST names.
	# It rotates over x86_64 only: under emulation a third takes 1 to 4
	# minutes there, two to three times that on the arm guests.
	local -a ft_cells=()
	for c in $MATRIX; do
		[ -e "$(cell_file "$c").tests" ] || continue
		case $c in *:patched | x86_64/*) continue ;; x86_64:*) ;; *) continue ;; esac
		if [ -n "${NANOGRAPH_FTRACETEST:-}" ]; then
			case " $NANOGRAPH_FTRACETEST " in
			*" $c "* | *" all "*) ;;
			*) continue ;;
			esac
		fi
		ft_cells+=("$c")
	done
	ft_cell=
	if [ "${#ft_cells[@]}" -gt 0 ]; then
		ft_cell=${ft_cells[seed / 3 % ${#ft_cells[@]}]}
		[ -z "${NANOGRAPH_FTRACETEST:-}" ] || ft_cell=${ft_cells[0]}
		echo "$ft_cell 34-ftracetest" >>"$work/rotation"
	fi
	# Of its directories where ftrace's other hook users live, a third
	# in each run: ftrace/ (the function tracers and their filters) but
	# its fgraph-multi cases; kprobe/; or those two cases of 7.x,
	# function_graph in several instances (95 and 55 s without nanograph
	# on x86_64 7.2, 190 and 66 s with it: as much as the rest together
	# there), with dynevent/ (so that the third has cases that pass on
	# 6.x too), direct/ and tracer/ (none of theirs passes on Debian's
	# kernels: no sample modules, no wakeup tracers).  make check-full
	# runs them all.
	if [ -n "$ft_cell" ]; then
		local ft_dirs=("ftrace,!ftrace/fgraph-multi" "kprobe"
			       "ftrace/fgraph-multi,dynevent,direct,tracer")
		echo "ftracetest_dirs=${ft_dirs[seed % 3]}" >"$(cell_file "$ft_cell").params"
	fi
	# The stock cells, in an order shifted by the rotation number.
	cells=()
	for c in $MATRIX; do
		[ -e "$(cell_file "$c").tests" ] && [ "${c#*:}" != patched ] && cells+=("$c")
	done
	if [ "${#cells[@]}" -gt 0 ]; then
		shift=$((seed % ${#cells[@]}))
		# One item a test and architecture ("arch": the cells of that
		# architecture may take it), or one a test ("matrix": any
		# cell), with its seconds on each architecture.
		while read -r name tier scope; do
			[ "${name%%-*}" != 34 ] || continue
			t="$(test_secs x86_64 "$name") $(test_secs arm64 "$name") $(test_secs arm "$name")"
			if [ "$scope" = matrix ]; then
				echo "$name any $t"
			else
				for arch in x86_64 arm64 arm; do echo "$name $arch $t"; done
			fi
		done <"$work/rotating" |
		awk -v cells="${cells[*]}" -v shift="$shift" -v ft="$ft_cell" \
		    -v ft_secs="$(test_secs x86_64 34-ftracetest)" '
			# ARCH of a cell ARCH[/MACHINE]:LINE, as first_of_arch() reads it.
			function arch_of(cell,	a) {
				a = cell
				sub(/[:\/].*/, "", a)
				return a
			}
			function secs(i, cell,	a) {
				a = arch_of(cell)
				return a == "x86_64" ? sx[i] : a == "arm64" ? sa[i] : sr[i]
			}
			BEGIN { n = split(cells, c, " ")
				for (i = 1; i <= n; i++) {
					o[i] = c[1 + (i - 1 + shift) % n]
					load[i] = o[i] == ft ? ft_secs : 0
				} }
			{ name[NR] = $1; where[NR] = $2; sx[NR] = $3; sa[NR] = $4; sr[NR] = $5
			  d[NR] = $3 > $4 ? $3 : $4; if ($5 > d[NR]) d[NR] = $5; idx[NR] = NR }
			END {
				for (i = 2; i <= NR; i++)	# longest first, stable
					for (j = i; j > 1 && d[idx[j - 1]] < d[idx[j]]; j--) {
						x = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = x
					}
				# Each to the cell it leaves least loaded.
				for (i = 1; i <= NR; i++) {
					t = idx[i]; b = 0
					for (k = 1; k <= n; k++) {
						if (where[t] != "any" && arch_of(o[k]) != where[t])
							continue
						if (!b || load[k] + secs(t, o[k]) < load[b] + secs(t, o[b]))
							b = k
					}
					if (!b)
						continue	# no cell of that architecture
					load[b] += secs(t, o[b])
					print o[b], name[t]
				}
			}' >>"$work/rotation"
	fi
	while read -r c name; do
		f=$(cell_file "$c")
		if [ "$(awk -v n="$name" '$1 == n { print $2 }' "$work/rotating")" = core+full ]; then
			echo "$(cat "$f.full"),${name%%-*}" >"$f.full"
		else
			printf '%s-*,' "${name%%-*}" >>"$f.tests"
		fi
	done <"$work/rotation"
	for c in $MATRIX; do
		f=$(cell_file "$c")
		[ -e "$f.tests" ] || continue
		sed -i 's/,$//' "$f.tests"
		what=core
		[ "${c#*:}" != patched ] || what="the current_tracer core ($(tr -d '*-' <"$f.tests" | tr , ' '))"
		echo "# $c: $what, and $(awk -v c="$c" '$1 == c { printf "%s ", $2 }' "$work/rotation" | sort)$(
			sed 's/^/(/; s/$/)/' "$f.params" 2>/dev/null)"
	done
}

# Keep how long each test took in this run's cells, by architecture, for
# the next run's balance (TEST_TIMES).
keep_test_times() {
	local cell new=$work/test-seconds
	for cell in $MATRIX; do
		awk -v a="${cell%%[:/]*}" '
			/^# [0-9][0-9]-[^:]*: .*\([0-9.]+s\)$/ {
				t = $2; sub(/:$/, "", t); s = $NF; gsub(/[()s]/, "", s)
				printf "%s %s %d\n", a, t, s + 0.5 }' "$(cell_file "$cell").out"
	done | sort -k1,2 -k3,3nr | sort -u -k1,2 >"$new.run"
	cp "$new.run" "$new"
	[ ! -f "$TEST_TIMES" ] || awk 'NR == FNR { seen[$1 " " $2] = 1; next } !(($1 " " $2) in seen)' \
		"$new.run" "$TEST_TIMES" >>"$new"
	mv "$new" "$TEST_TIMES"
}

if [ "$vm" = 1 ]; then
	work=$(mktemp -d)
	trap stop_cells INT TERM HUP
	# Cells the archive does not have, or that would repeat another.
	for cell in $MATRIX; do
		f=$(cell_file "$cell")
		why=$(cell_skip "$cell")
		if [ -n "$why" ]; then
			echo "ok - $cell # SKIP $why" >"$f.out"
			touch "$f.skip"
			echo 0 >"$f.rc"
		fi
	done
	[ "$CHECK_MODE" != core ] || plan_rotation
	if [ "$plan" = 1 ]; then
		for cell in $MATRIX; do
			f=$(cell_file "$cell")
			[ ! -e "$f.skip" ] || cat "$f.out"
		done
		rm -rf "$work"
		exit 0
	fi
	# Then run NANOGRAPH_JOBS cells at a time (default 2: the machines
	# have two cores, and a boot is mostly one busy QEMU thread).  Each
	# builds, then boots; vmtest.sh builds one cell at a time (a lock),
	# so a cell builds while another boots.  The longest first (by
	# the last run's times), so that no long cell starts last.
	running=0
	for cell in $(longest_first); do
		[ -e "$(cell_file "$cell").rc" ] && continue
		boot_cell "$cell" &
		running=$((running + 1))
		# Until a cell ends: the host's checks ending frees no slot.
		while [ "$running" -ge "${NANOGRAPH_JOBS:-2}" ]; do
			wait -n -p ended
			[ "$ended" = "${host_pid:-}" ] || running=$((running - 1))
		done
	done
	# Every cell, not the host's checks: those are waited for below.
	for j in $(jobs -p); do
		[ "$j" = "${host_pid:-}" ] || wait "$j"
	done
	record_times
	keep_test_times
	for cell in $MATRIX; do
		f=$(cell_file "$cell")
		cell_opts "$cell"
		echo "# VM ${opts[*]}"
		rc=$(cat "$f.rc")
		p0=$pass f0=$fail s0=$skip
		tally <"$f.out"
		if [ "$rc" != 0 ] && ! grep -q '^not ok' "$f.out"; then
			echo "not ok - $cell rig: vmtest.sh exited $rc"
			echo "# not ok - $cell rig: vmtest.sh exited $rc" >>"$failures"
			grep -v '^\(ok\|#\)' "$f.out" | tail -n 20 | sed 's/^/# /'
			fail=$((fail + 1))
		fi
		printf '%-34s %6s %6s %6s %6s\n' "$cell" $((pass - p0)) $((fail - f0)) \
			$((skip - s0)) "$(cut -d' ' -f2 "$f.secs" 2>/dev/null || echo -)" >>"$work/table"
	done
	# The end table: where the time went.
	echo "# $(printf '%-34s %6s %6s %6s %6s' cell passed failed skipped secs)"
	sed 's/^/# /' "$work/table"
	rm -rf "$work"
fi

if [ -n "$host_out" ]; then
	wait "$host_pid" 2>/dev/null || :
	tally <"$host_out"
	rm -f "$host_out"
fi

echo "# $(( $(date +%s) - start ))s"
[ "$skip" = 0 ] || echo "# $skip skipped"
if [ -s "$failures" ]; then
	echo "# failed:"
	cat "$failures"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
