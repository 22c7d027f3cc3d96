#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what nanograph's build, demo and test rig need on a Debian
# bookworm host.  Idempotent: packages already present are left alone.
# Kernel packages for the VMs are *not* installed here; tools/vmtest.sh
# downloads and unpacks them into its cache.
set -euo pipefail

pkgs=(
	# build the module and the collector
	build-essential bc bison flex libelf-dev dwarves pkg-config
	libtracefs-dev libtraceevent-dev libtracecmd-dev libbpf-dev
	# cross toolchains for the arm64 and arm VMs
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
	libc6-dev-arm64-cross libc6-dev-armhf-cross
	# the VM rig
	qemu-system-x86 qemu-system-arm cpio zstd xz-utils
	# the build roots of kernels built by a newer gcc than the host's
	debootstrap
	# the patched kernel (tools/kernel-build.sh): what kbuild needs beyond
	# the module build's
	libssl-dev
	# code checks: sparse for make C=1, checkpatch's helpers, shellcheck
	# for the rig's scripts (tools/lint.sh)
	sparse codespell shellcheck
	# make check builds the module with DKMS (tools/dkms-check.sh)
	dkms
	# host tests: protoc reads "export --perfetto" files back
	protobuf-compiler
	# the man pages' check (tools/man-check.sh): groff renders them,
	# man reads the installed ones back
	groff-base man-db
)

missing=()
for p in "${pkgs[@]}"; do
	grep -q '^install ok installed' <<<"$(dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null)" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
# One suite or third-party repository may fail to refresh while a mirror
# syncs; the Debian main archive is all we need, so tolerate the rest.
$SUDO apt-get update || echo "setup-host: apt-get update reported errors; continuing" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
