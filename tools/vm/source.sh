# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2153,SC2154 # variables shared by the pieces
#
# tools/vm/source.sh - the parts of the kernel's sources the project reads:
# checkpatch, ftrace, the stack walkers.
#
# source_fetch unpacks SOURCE_PATHS of the line's linux-source package into
# $CACHE/src/KLINE-VERSION/ (paths added later are unpacked into a complete
# dir on the next call), sets SRCVER and prints the directory.
#
# Sourced by tools/vmtest.sh (the front: settings, options, the commands'
# order); shares its variables and die/log.

# Paths of the linux-source tarball worth keeping: checkpatch and its data
# files, the ftrace code and selftests this project is modelled on, and
# the stack walkers and their users that see the return trampoline
# (Documentation/stack-traces.md).
SOURCE_PATHS="scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
kernel/trace include/linux/ftrace.h include/linux/trace_recursion.h
arch/x86/kernel/ftrace.c arch/x86/kernel/ftrace_64.S arch/x86/include/asm/ftrace.h
arch/arm64/kernel/ftrace.c arch/arm64/kernel/entry-ftrace.S arch/arm64/include/asm/ftrace.h
arch/arm/kernel/ftrace.c arch/arm/kernel/entry-ftrace.S arch/arm/include/asm/ftrace.h
tools/testing/selftests/ftrace
arch/x86/kernel/unwind_orc.c arch/x86/kernel/stacktrace.c arch/x86/kernel/dumpstack.c
arch/x86/include/asm/unwind.h arch/x86/include/asm/stacktrace.h arch/x86/events/core.c
arch/arm64/kernel/stacktrace.c arch/arm64/kernel/perf_callchain.c arch/arm64/kernel/process.c
arch/arm64/include/asm/stacktrace.h arch/arm64/include/asm/stacktrace
arch/arm/kernel/unwind.c arch/arm/kernel/stacktrace.c arch/arm/kernel/traps.c
arch/arm/kernel/perf_callchain.c arch/arm/kernel/process.c arch/arm/include/asm/stacktrace.h
kernel/livepatch kernel/events/callchain.c kernel/bpf/stackmap.c kernel/stacktrace.c
kernel/locking/lockdep.c kernel/sched/core.c kernel/kprobes.c fs/proc/base.c
drivers/tty/sysrq.c lib/dump_stack.c mm/kmemleak.c include/linux/stacktrace.h
include/linux/instruction_pointer.h include/linux/livepatch.h
arch/x86/kernel/process.c include/linux/perf_event.h arch/x86/include/asm/perf_event.h
arch/arm64/include/asm/perf_event.h arch/arm/include/asm/perf_event.h
kernel/entry/common.c include/linux/entry-common.h kernel/sched/idle.c
include/trace/events/kmem.h mm/slab_common.c mm/slub.c"

# Unpack those paths of linux-source-$LINE into the cache; print the dir.
# Paths added to the list later are unpacked into a complete dir on the
# next call (a path the line's tarball lacks is not an error).
source_fetch() {
	local pkg=linux-source-$KLINE ver dir f p err wild=()
	apt_use "$FAMILY" "$DEB"
	ver=$(apt_version "$pkg" "$KLINE.")
	# shellcheck disable=SC2012 # plain directory names
	[ -n "$ver" ] || ver=$(ls -d "$CACHE/src/$KLINE-"*/.complete 2>/dev/null | sed "s|.*/$KLINE-||; s|/.complete$||" | sort -V | tail -n 1)
	[ -n "$ver" ] || die "cannot resolve $pkg"
	dir=$CACHE/src/$KLINE-$ver
	if [ -f "$dir/.complete" ]; then
		for p in $SOURCE_PATHS; do
			[ -e "$dir/$p" ] || grep -qxF "$p" "$dir/.absent" 2>/dev/null ||
				wild+=("$pkg/$p")
		done
	else
		rm -rf "$dir"
		mkdir -p "$dir"
		for p in $SOURCE_PATHS; do wild+=("$pkg/$p"); done
	fi
	if [ ${#wild[@]} -gt 0 ]; then
		log "unpacking ${#wild[@]} paths of $pkg $ver (checkpatch and the kernel reference)"
		f=$(apt_fetch "$pkg" all "$ver")
		err=$(dpkg-deb --fsys-tarfile "$f" | tar -xO --wildcards "./usr/src/$pkg.tar.*" |
			tar -xJ -C "$dir" --strip-components=1 "${wild[@]}" 2>&1) || :
		# Only members missing from this line's tarball are tolerated.
		if printf '%s\n' "$err" | grep -v '^$' | grep -vq 'Not found in archive\|Exiting with failure'; then
			die "cannot unpack $pkg: $err"
		fi
		printf '%s\n' "$err" | sed -n "s|^tar: $pkg/\(.*\): Not found in archive|\1|p" >>"$dir/.absent"
		touch "$dir/.complete"
	fi
	SRCVER=$ver
	echo "$dir"
}
