# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/results.sh - read a boot's results: KTAP, dmesg, the console's
# splats.
#
# results reads $OUTBASE/TAG/console.log into results.ktap, dmesg.txt,
# splats.txt and counts beside it, prints one "ok"/"not ok" line per test
# prefixed with TAG and a count line, and fails on a failed test or a
# kernel splat with nanograph in it.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

# Print the text between two marker lines of the console log, with the
# carriage returns of the serial line removed.
between() {
	tr -d '\r' <"$3" | awk -v b="$1" -v e="$2" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }'
}

# Kernel splats that fail a run whatever the tests said.
SPLATS='WARNING:|BUG:|Oops|Kernel panic|rcu_.*detected stall|RCU Stall|soft lockup|hard LOCKUP|general protection fault|Unable to handle kernel|UBSAN:|KASAN:|kernel BUG'

# Each splat of a run with where it happened: for each CPU the kernel
# shows, its task, work item, PC and first frames, so that a CI log that
# keeps only this summary still says which code every CPU was in.  From
# the guest's dmesg (each line once) unless the boot died before it.
splat_where() {
	local src=$1/dmesg.txt
	[ -s "$src" ] || src=$1/console.log
	tr -d '\r' <"$src" | awk -v re="$SPLATS" '
		$0 ~ re { print; ctx = 40; frames = 0; next }
		ctx > 0 {
			ctx--
			if ($0 ~ /Comm:/) frames = 0
			if ($0 ~ /NMI backtrace|Comm:|Workqueue:|Stopper:|PC is at|LR is at|pc : [a-z_]|RIP:/) print
			else if ($0 ~ /( from |^ *\[<[0-9a-f]+>\] |^ *[a-z_][a-z_0-9.]*\+0x)/ && frames++ < 6) print
		}'
}

# The splats of console log $1 that fail the run: all of them, except a
# stall or soft lockup inside ftrace's own text patching (ftrace_replace_code,
# text_poke_bp_batch: x86 patches without a point to reschedule, and under
# emulation a whole-kernel patch by function_graph or the function tracer
# can outlast the 21 s threshold) entered from the kernel's own tracer
# switch, with no nanograph code anywhere in the report (no "[nanograph]"
# frame, no ng_* symbol, on any CPU shown).  Those are printed to $2 as
# the kernel's own emulation-speed stalls (Documentation/testing.md,
# "Stalls that are not nanograph's").  A report with nanograph in it
# always fails.
splats_of() {
	tr -d '\r' <"$1" | awk -v re="$SPLATS" -v known="$2" '
		function flush() {
			if (head == "") return
			own = head ~ /detected stall|soft lockup/ &&
			      body ~ /(ftrace_replace_code|text_poke_bp_batch)\+/ &&
			      body ~ /(register_ftrace_graph|tracing_set_tracer|ftrace_startup)\+/ &&
			      body !~ /\[nanograph\]|[ \t?]ng_[a-z_0-9]+\+0x/
			if (own) print head >known
			else print head
			head = ""; body = ""
		}
		$0 ~ re { flush(); head = $0; n = 0; next }
		head != "" && n++ < 80 { body = body "\n" $0 }
		END { flush() }'
}

# Turn the guest's KTAP and the console check into this run's results:
# one "ok"/"not ok" line per test, prefixed with ARCH-LINE, a count line.
results() {
	local out=$OUTBASE/$TAG tag=$TAG pass=0 fail=0 skip=0 line
	between NANOGRAPH-KTAP-BEGIN NANOGRAPH-KTAP-END "$out/console.log" >"$out/results.ktap"
	between NANOGRAPH-DMESG-BEGIN NANOGRAPH-DMESG-END "$out/console.log" >"$out/dmesg.txt"
	ftracetest_base_keep "$out"
	between NANOGRAPH-FTRACETEST-BEGIN NANOGRAPH-FTRACETEST-END "$out/console.log" >"$out/ftracetest.txt"
	[ -s "$out/ftracetest.txt" ] || rm -f "$out/ftracetest.txt"
	if ! grep -q '^1\.\.[0-9]' "$out/results.ktap"; then
		local last
		last=$(tr -d '\r' <"$out/console.log" | sed -n 's/.*nanograph-vm: test \([^ ]*\) started.*/\1/p' | tail -n 1)
		echo "not ok - $tag boot: no KTAP results${last:+; the last test started was $last} (see $out/console.log)"
		tail -n 30 "$out/console.log" | sed 's/^/# /'
		fail=$((fail + 1))
	else
		# shellcheck disable=SC2001 # sed, as it reads
		while IFS= read -r line; do
			case "$line" in
			"ok "*"# SKIP"*) skip=$((skip + 1)); echo "$line" | sed "s/^ok [0-9]* /ok - $tag /" ;;
			"ok "*) pass=$((pass + 1)); echo "$line" | sed "s/^ok [0-9]* /ok - $tag /" ;;
			"not ok "*) fail=$((fail + 1)); echo "$line" | sed "s/^not ok [0-9]* /not ok - $tag /" ;;
			"#"*) echo "$line" ;;
			esac
		done <"$out/results.ktap"
		local planned
		planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$out/results.ktap" | head -n 1)
		if [ $((pass + fail + skip)) -ne "$planned" ]; then
			echo "not ok - $tag ktap: planned $planned tests, saw $((pass + fail + skip))"
			fail=$((fail + 1))
		fi
	fi
	rm -f "$out/splats-kernel.txt"
	splats_of "$out/console.log" "$out/splats-kernel.txt" >"$out/splats.txt"
	if [ -s "$out/splats.txt" ]; then
		echo "not ok - $tag console: kernel splat"
		splat_where "$out" | head -n 60 | sed 's/^/# /'
		fail=$((fail + 1))
	else
		echo "ok - $tag console: no warnings, oopses, stalls or lockups with nanograph in them"
		pass=$((pass + 1))
	fi
	if [ -s "$out/splats-kernel.txt" ]; then
		echo "# $tag console: $(sort -u "$out/splats-kernel.txt" | wc -l) stall(s) of the kernel's own ftrace text patching under emulation, no nanograph code in them, not counted:"
		sort -u "$out/splats-kernel.txt" | head -n 5 | sed 's/^/#   /'
	fi
	echo "# $tag: $pass passed, $fail failed, $skip skipped"
	echo "$pass $fail $skip" >"$out/counts"
	[ "$fail" -eq 0 ]
}
