#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest.sh - build nanograph for a stock Debian kernel and test it in QEMU.
#
# Idempotent and cached, in the spirit of the kernel's
# tools/testing/selftests/bpf/vmtest.sh.  This file is the front: the
# settings, the options, and the order of the steps for one architecture
# and one kernel line.  Each step is a file of tools/vm/ with one job:
#   lines.sh       the tables: architectures, machines, kernel lines
#   apt.sh         a private apt state per Debian suite family; downloads
#   kernel.sh      resolve the line's kernel build; fetch and unpack it
#   userland.sh    the guest's userland and the collector's sysroot
#   source.sh      the parts of linux-source the project reads
#   buildroot.sh   a Debian root with the kernel's gcc, when the host lacks it
#   build.sh       the module, the collector, the initramfs
#   ftracetest.sh  test 34's host side: when it runs, its baseline
#   boot.sh        boot the guest in QEMU
#   results.sh     the boot's KTAP and the console's splats: the results
#
# See Documentation/testing.md.
# shellcheck source-path=SCRIPTDIR/..

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${NANOGRAPH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nanograph}
OUTBASE=${NANOGRAPH_OUT:-$ROOT/build/vm}
OFFLINE=${NANOGRAPH_OFFLINE:-0}
VM_TIMEOUT=${NANOGRAPH_VM_TIMEOUT:-}
# Cells that run test 34, the kernel's ftracetest with and without
# nanograph (minutes under emulation): "all", "none" or arch:line words.
FTRACETEST_CELLS=${NANOGRAPH_FTRACETEST:-x86_64:6.1 x86_64:patched}
# 2 GiB: 33-many-tasks runs 20,000 threads (1 GiB on 32-bit arm).
VM_MEM=${NANOGRAPH_VM_MEM:-2048}
VM_SMP=${NANOGRAPH_VM_SMP:-2}
# Refresh the package lists at most this often (seconds) unless -u.
LISTS_MAX_AGE=${NANOGRAPH_LISTS_MAX_AGE:-21600}

ARCH=x86_64
LINE=6.1
MACHINE=""
VERBOSE=0
FORCE_UPDATE=0
TESTS=""

usage() {
	cat <<EOF
Usage: $0 [options] <command>

Commands:
  fetch      download and unpack the kernel and userland for ARCH/LINE
  build      fetch, then build the module, the collector and the initramfs
  run        build, boot, run selftests/vm, check the console (the default)
  shell      build and boot into an interactive shell in the VM
  demo       build and boot, run tools/demo-guest.sh, copy its output out
  bench      build and boot, run tools/bench-guest.sh (NANOGRAPH_BENCH=ITER:ROUNDS)
  profile    build and boot, run tools/profile-guest.sh (NANOGRAPH_PROFILE=
             READS); tools/profile.sh drives it
  soak       build and boot, run the soak test selftests/vm/soak (for
             NANOGRAPH_SOAK_MINUTES, default 10), check the console
  resolve    print the resolved kernel package version and exit
  source     unpack checkpatch and the ftrace sources of LINE; print where
  headers    fetch the kernel; print its headers (KDIR) directory
  list       print the supported architectures and kernel lines

Options:
  -a ARCH    x86_64 (default), arm64 or arm
  -k LINE    kernel line (KERNEL_LINES, "list"): 6.1 (bookworm, the
             default), 6.12 (bookworm-backports), trixie (trixie's 6.12),
             trixie-backports or sid (their newest); patched (x86_64,
             arm64: 6.12 with kernel-patches/, tools/kernel-build.sh)
  -m MACHINE the QEMU machine, if ARCH has more than one (see "list"):
             arm: virt (default; Cortex-A15) or vexpress-a9 (Cortex-A9, no
             generic timer).  Results go to build/vm/ARCH-MACHINE-LINE.
  -t GLOB    run only the selftests whose file name matches GLOB
  -u         refresh the package lists now
  -v         show QEMU's console on stdout while it runs
  -h         this help

Environment:
  NANOGRAPH_CACHE      cache directory (default: ~/.cache/nanograph)
  NANOGRAPH_OUT        build/output directory (default: <repo>/build/vm)
  NANOGRAPH_OFFLINE=1  never touch the network; use what the cache has
  NANOGRAPH_MIRROR     Debian archive URI (default: taken from the host's
                       apt sources)
  NANOGRAPH_VM_TIMEOUT seconds before a boot is killed (default: 1800, 2400
                       where test 34 runs ftracetest)
  NANOGRAPH_VM_MEM     guest memory in MiB (default: $VM_MEM)
  NANOGRAPH_VM_SMP     guest CPUs (default: $VM_SMP)
  NANOGRAPH_QEMU_EXTRA more QEMU arguments, split at spaces (a monitor
                       socket for tools/profile.sh, say)
  NANOGRAPH_KARGS      more words for the guest kernel's command line
                       (watchdog_thresh=3, say, to report shorter stalls)
  NANOGRAPH_SEED       seed of the randomised selftests (28-fuzz), to replay
                       a run; each run prints the seed it used
  NANOGRAPH_FULL=NN,...   run only these tests at their full size (ng_full;
                       default all; make check names the rotation's)
  NANOGRAPH_SCOPE=kernel  skip the tests marked "# scope: arch" (make check
                       runs those in one cell per architecture)
  NANOGRAPH_PARAMS     "NAME=VALUE ..." knobs of the selftests (ngvm.NAME=
                       on the kernel command line), e.g. "cycles=20
                       tasks=5000"; see Documentation/testing.md
  NANOGRAPH_FTRACETEST cells whose boot runs test 34, the kernel's ftrace
                       selftests without and with nanograph: "all", "none"
                       or arch:line words (default: x86_64:6.1
                       x86_64:patched); a -t GLOB
                       that matches 34-ftracetest runs it in any cell
EOF
}

die() { echo "vmtest: error: $*" >&2; exit 1; }
log() { echo "vmtest: $*" >&2; }

# The steps (tools/vm/): functions and their tables, nothing run yet.
. "$ROOT/tools/vm/lines.sh"
. "$ROOT/tools/vm/apt.sh"
. "$ROOT/tools/vm/kernel.sh"
. "$ROOT/tools/vm/userland.sh"
. "$ROOT/tools/vm/source.sh"
. "$ROOT/tools/vm/buildroot.sh"
. "$ROOT/tools/vm/build.sh"
. "$ROOT/tools/vm/ftracetest.sh"
. "$ROOT/tools/vm/boot.sh"
. "$ROOT/tools/vm/results.sh"

# -------------------------------------------------------------------------

main() {
	local opt cmd
	while getopts "a:k:m:t:uvh" opt; do
		case "$opt" in
		a) ARCH=$OPTARG ;;
		k) LINE=$OPTARG ;;
		m) MACHINE=$OPTARG ;;
		t) TESTS=$OPTARG ;;
		u) FORCE_UPDATE=1 ;;
		v) VERBOSE=1 ;;
		h) usage; exit 0 ;;
		*) usage >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	cmd=${1:-run}
	if [ "$cmd" = list ]; then
		echo "architectures: x86_64 arm64 arm"
		echo "kernel lines:  $LINES"
		echo "patched lines: patched on $PATCHED_ARCHES (tools/kernel-build.sh)"
		echo "machines:      arm: virt (default), vexpress-a9"
		exit 0
	fi
	arch_setup
	machine_setup
	line_setup
	# Runs of several cells at once (make check) share the apt states,
	# the unpacked kernels and userlands, the build roots and each
	# architecture's collector build: one fetches and builds at a time,
	# while the others boot.
	mkdir -p "$CACHE"
	# The patched line's kernel is built (or found built) first, outside
	# the lock: tools/kernel-build.sh fetches through this script.
	[ "$LINE" != patched ] || patched_build "$cmd"
	exec 9>"$CACHE/.build.lock"
	flock 9
	kernel_resolve
	case "$cmd" in
	resolve) echo "$ARCH $LINE $KREL $KVER"; exit 0 ;;
	source) source_fetch ;;
	headers) kernel_fetch; echo "$KDIR_ROOT/usr/src/linux-headers-$KREL" ;;
	fetch) kernel_fetch; userland_fetch ;;
	build) kernel_fetch; userland_fetch; build_all ;;
	run | shell | demo | bench | profile | soak)
		kernel_fetch; userland_fetch; build_all
		exec 9>&-
		case "$cmd" in
		run) boot test; results ;;
		soak)
			# The soak's own length, plus the boot and the unload,
			# plus the stress-ng sweep (12 to 17 minutes on x86_64
			# and arm64; an hour allowed).
			[ -n "${NANOGRAPH_VM_TIMEOUT:-}" ] ||
				VM_TIMEOUT=$(( ${NANOGRAPH_SOAK_MINUTES:-10} * 60 + 900 + 3600 ))
			boot soak; results ;;
		*) boot "$cmd" ;;
		esac ;;
	*) usage >&2; exit 2 ;;
	esac
}

main "$@"
