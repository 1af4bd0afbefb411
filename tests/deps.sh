#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages classifier builds and tests with; idempotent.
set -e

pkgs="clang llvm libbpf-dev bpftool libmnl-dev libelf-dev zlib1g-dev
	libnl-3-dev libnl-route-3-dev libmicrohttpd-dev
	libcmocka-dev pkg-config make gcc iproute2 nftables iputils-ping jq
	util-linux procps python3 gnuplot-nox strace prometheus curl tmux
	systemd man-db groff-base bash-completion
	debhelper dpkg-dev lintian debootstrap bird2
	libclang-rt-14-dev valgrind"

# Debian enables and starts bird.service when it installs bird2; the
# tests run their own BIRDs in namespaces, so one installed here is not
# left running on the host.
new_bird=
dpkg-query -W -f='${Status}' bird2 2>/dev/null | grep -q 'ok installed' ||
	new_bird=1

"$(dirname "$0")/../deploy/ensure-packages.sh" deps $pkgs

if [ -n "$new_bird" ] && command -v systemctl >/dev/null; then
	systemctl disable --now bird.service >/dev/null 2>&1 || true
fi

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "deps: /sys/kernel/btf/vmlinux missing: kernel needs CONFIG_DEBUG_INFO_BTF" >&2
	exit 1
fi
