# SPDX-License-Identifier: GPL-2.0
#
# nanograph: top-level build.
#
#   make                      module against the running kernel + collector
#   make KDIR=<build dir>     module against another kernel's build tree
#   make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KDIR=...   cross build
#   make C=1 W=1              sparse and extra warnings, passed to kbuild
#   make demo                 boot a stock kernel in QEMU and trace a command
#   make check                host unit tests, then every stock kernel of the
#                             VM matrix with the core tests, the long ones
#                             in rotation (Documentation/testing.md)
#   make check-full           every test in every cell; builds the patched
#                             kernels first if missing (about an hour)
#   make patched-kernels      build the kernels with kernel-patches/ (x86_64,
#                             arm64) so that make check boots them too
#   make bench                per-call cost vs function_graph, in QEMU
#   make soak                 every function, every task, 10 minutes of load
#                             (SOAK_MINUTES) on x86_64 and arm64; not in check
#   make dkms-install         register the module with DKMS (root): rebuilt
#                             for every kernel the system installs
#   make dkms-uninstall       remove it from DKMS
#   make install              the collector to $(DESTDIR)$(PREFIX)/bin and its
#                             man pages (Documentation/man) to
#                             $(DESTDIR)$(PREFIX)/share/man/man1 and man5;
#                             PREFIX=/usr/local by default.  Not the module:
#                             insmod it from the build tree, or dkms-install
#   make uninstall            remove what install put there
#
# The kernel side is built by kbuild from the Kbuild file next to this one.

KDIR ?= /lib/modules/$(shell uname -r)/build

.PHONY: all module userspace check check-full patched-kernels unit vmcheck demo bench soak lint clean \
	dkms-version dkms-source dkms-install dkms-uninstall install uninstall

all: module userspace

module:
	@test -f "$(KDIR)/Makefile" || { \
		echo "nanograph: no kernel build tree at $(KDIR)." >&2; \
		echo "nanograph: install linux-headers-$$(uname -r), or pass KDIR=<kernel build dir>." >&2; \
		exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" modules

userspace:
	$(MAKE) -C userspace

# Host unit tests first (fast), then the boots; one summary line at the end.
check:
	tools/check.sh

check-full:
	NANOGRAPH_CHECK=full tools/check.sh

patched-kernels:
	for a in $$(tools/vmtest.sh list | sed -n 's/^patched lines: patched on \(.*\) (.*/\1/p'); do \
		tools/kernel-build.sh -a $$a || exit 1; \
	done

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

# DKMS: the module's sources and dkms.conf under $(DKMS_SRC), the version
# the collector reports filled in.  DKMS_SRC can point elsewhere for a
# build that does not touch the system (tools/dkms-check.sh).
VERSION := $(shell sed -n 's/^\#define NANOGRAPH_VERSION[^"]*"\(.*\)"/\1/p' userspace/include/nanograph.h 2>/dev/null)
DKMS_SRC ?= /usr/src/nanograph-$(VERSION)
DKMS_FILES := Kbuild Makefile kmod arch include

dkms-version:
	@echo $(VERSION)

dkms-source:
	rm -rf "$(DKMS_SRC)"
	mkdir -p "$(DKMS_SRC)"
	cp -R $(DKMS_FILES) "$(DKMS_SRC)/"
	find "$(DKMS_SRC)" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' \) -delete
	sed 's/@VERSION@/$(VERSION)/' dkms.conf >"$(DKMS_SRC)/dkms.conf"

dkms-install: dkms-source
	dkms add -m nanograph -v $(VERSION)
	dkms build -m nanograph -v $(VERSION)
	dkms install -m nanograph -v $(VERSION)

dkms-uninstall:
	dkms remove -m nanograph -v $(VERSION) --all
	rm -rf "$(DKMS_SRC)"

# The collector and its man pages; @VERSION@ in a page becomes the
# collector's version.  tools/man-check.sh installs into a scratch
# DESTDIR and reads every page back with man.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
MAN_PAGES := $(sort $(wildcard Documentation/man/*.[15]))

install: userspace
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5"
	install -m 0755 userspace/nanograph "$(DESTDIR)$(BINDIR)/nanograph"
	@set -e; for p in $(MAN_PAGES); do \
		d="$(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}"; \
		echo "sed s/@VERSION@/$(VERSION)/ $$p > $$d"; \
		sed 's/@VERSION@/$(VERSION)/g' "$$p" >"$$d"; \
		chmod 0644 "$$d"; \
	done

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/nanograph"
	rm -f $(foreach p,$(MAN_PAGES),"$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p))")

clean:
	@if [ -f "$(KDIR)/Makefile" ]; then $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean; fi
	$(MAKE) -C userspace clean
	rm -rf build
