# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/ftracetest.sh - the host's side of test 34 (the kernel's
# ftracetest, without and with nanograph).
#
# ftracetest_wanted: does this boot run it; ftracetest_base_file: where the
# run without nanograph is kept (per kernel, selftests and guest userland);
# ftracetest_base_keep: keep the baseline a boot printed.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

# The kernel's ftrace selftests (ftracetest) of the line, from the
# linux-source source_fetch unpacks: copied into the guest as /nanograph/ftrace.
FTRACE_ST=tools/testing/selftests/ftrace

# Where the ftracetest results without nanograph are kept: they depend on
# the kernel build, the selftests' version and the guest userland (its
# packages, /init, the runner), never on the module or the collector.
# Test 34 runs without nanograph the cases of its run that the file
# lacks (all of them when there is none), and the host keeps the merged
# file it printed.
ftracetest_base_file() {
	local u
	u=$( (grep '^rt ' "$CACHE/userland/$DEB/manifest" 2>/dev/null
		cat "$ROOT/tools/guest-init.sh" "$ROOT/selftests/vm/ftrace-run.sh") |
		md5sum | cut -c1-8)
	echo "$CACHE/ftracetest/$ARCH-$KREL-$KVER-src$SRCVER-u$u.base"
}

# Does this boot run test 34 (ftracetest)?  It costs about 5.5 minutes
# on x86_64 6.1 (3.5 more the first time, for the baseline), so by
# default one cell of the matrix runs it (Documentation/testing.md).
ftracetest_wanted() {
	local w g gs
	if [ -n "$TESTS" ]; then
		# A list of globs: one of them names test 34, or no ftracetest.
		IFS=, read -ra gs <<<"$TESTS"
		for g in "${gs[@]}"; do
			# shellcheck disable=SC2254,SC2194 # the glob is the pattern
			case 34-ftracetest in $g) return 0 ;; esac
		done
		return 1
	fi
	for w in $FTRACETEST_CELLS; do
		case "$w" in
		all | "$ARCH:$LINE") return 0 ;;
		esac
	done
	return 1
}

# Test 34 prints the ftracetest baseline when it grew it (cases of its
# run that the cached one lacked) between markers: keep it for the next
# boots of this kernel.
# Only a complete one: a header line with the case count, one line each.
ftracetest_base_keep() {
	local out=$1 base
	between NANOGRAPH-FTBASE-BEGIN NANOGRAPH-FTBASE-END "$out/console.log" >"$out/ftracetest.base"
	[ -s "$out/ftracetest.base" ] || { rm -f "$out/ftracetest.base"; return 0; }
	if ! awk 'NR == 1 { n = $2; next } NF >= 3 { c++ } END { exit !(n > 0 && c == n) }' \
			"$out/ftracetest.base"; then
		log "incomplete ftracetest baseline in the console; not kept"
		return 0
	fi
	base=$(ftracetest_base_file)
	mkdir -p "${base%/*}"
	cp "$out/ftracetest.base" "$base.new.$$" && mv "$base.new.$$" "$base"
	log "kept the ftracetest baseline: $base"
}
