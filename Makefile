# SPDX-License-Identifier: GPL-2.0
#
# nanograph: top-level build.
#
#   make                      module against the running kernel + collector
#   make KDIR=<build dir>     module against another kernel's build tree
#   make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KDIR=...   cross build
#   make C=1 W=1              sparse and extra warnings, passed to kbuild
#   make demo                 boot a stock kernel in QEMU and trace a command
#   make check                host unit tests, then the VM test matrix
#   make bench                per-call cost vs function_graph, in QEMU
#   make soak                 every function, every task, 10 minutes of load
#                             (SOAK_MINUTES) on x86_64 and arm64; not in check
#
# The kernel side is built by kbuild from the Kbuild file next to this one.

KDIR ?= /lib/modules/$(shell uname -r)/build

.PHONY: all module userspace check unit vmcheck demo bench soak lint clean

all: module userspace

module:
	@test -f "$(KDIR)/Makefile" || { \
		echo "nanograph: no kernel build tree at $(KDIR)." >&2; \
		echo "nanograph: install linux-headers-$$(uname -r), or pass KDIR=<kernel build dir>." >&2; \
		exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" modules

userspace:
	$(MAKE) -C userspace

# Host unit tests first (fast), then six boots; one summary line at the end.
check:
	tools/check.sh

unit:
	tools/check.sh --unit-only

vmcheck:
	tools/check.sh --vm-only

demo:
	tools/demo.sh

# Cost per traced call against the kernel's own tracers, in one boot per
# architecture (Documentation/performance.md).
bench:
	tools/bench.sh

# Every function hooked for every task under fork/exec/pipe/file load for
# SOAK_MINUTES (default 10) per architecture, then stop and unload
# (Documentation/testing.md).  Not part of check.
soak:
	tools/soak.sh

lint:
	tools/lint.sh

clean:
	@if [ -f "$(KDIR)/Makefile" ]; then $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean; fi
	$(MAKE) -C userspace clean
	rm -rf build
