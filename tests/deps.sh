#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages classifier builds and tests with; idempotent.
set -e

pkgs="clang llvm libbpf-dev bpftool libmnl-dev libelf-dev zlib1g-dev
	libcmocka-dev pkg-config make gcc iproute2 nftables iputils-ping jq
	util-linux procps python3 gnuplot-nox"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing packages:$missing (run as root to install)" >&2
		exit 1
	fi
	echo "deps: installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "deps: /sys/kernel/btf/vmlinux missing: kernel needs CONFIG_DEBUG_INFO_BTF" >&2
	exit 1
fi
