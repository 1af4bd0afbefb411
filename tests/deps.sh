#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages classifier builds and tests with; idempotent.
set -e

pkgs="clang llvm libbpf-dev bpftool libmnl-dev libelf-dev zlib1g-dev
	libnl-3-dev libnl-route-3-dev libmicrohttpd-dev
	libcmocka-dev pkg-config make gcc iproute2 nftables iputils-ping jq
	util-linux procps python3 gnuplot-nox strace prometheus curl tmux
	systemd man-db groff-base bash-completion
	debhelper dpkg-dev lintian debootstrap bird2 frr
	libclang-rt-14-dev valgrind"

# Debian enables and starts bird.service and frr.service when it installs
# bird2 and frr; the tests run their own BIRDs and FRRs in namespaces, so
# those installed here are not left running (nor started at boot) on the
# host.  PACKAGE:SERVICE
new_services=
for p in bird2:bird frr:frr; do
	dpkg-query -W -f='${Status}' "${p%%:*}" 2>/dev/null |
		grep -q 'ok installed' || new_services="$new_services ${p#*:}"
done

"$(dirname "$0")/../deploy/ensure-packages.sh" deps $pkgs

if command -v systemctl >/dev/null; then
	for s in $new_services; do
		systemctl disable --now "$s.service" >/dev/null 2>&1 || true
	done
fi

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "deps: /sys/kernel/btf/vmlinux missing: kernel needs CONFIG_DEBUG_INFO_BTF" >&2
	exit 1
fi
