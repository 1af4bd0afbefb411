#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages classifier builds and tests with; idempotent.
set -e

pkgs="clang llvm libbpf-dev bpftool libmnl-dev libelf-dev zlib1g-dev
	libnl-3-dev libnl-route-3-dev libmicrohttpd-dev
	libcmocka-dev pkg-config make gcc iproute2 nftables iputils-ping jq
	util-linux procps python3 gnuplot-nox strace
	systemd man-db groff-base bash-completion
	debhelper dpkg-dev lintian debootstrap bird2"

"$(dirname "$0")/../deploy/ensure-packages.sh" deps $pkgs

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "deps: /sys/kernel/btf/vmlinux missing: kernel needs CONFIG_DEBUG_INFO_BTF" >&2
	exit 1
fi
