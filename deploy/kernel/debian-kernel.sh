#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch one of Debian's prebuilt x86-64 kernels with apt-get download and
# unpack it with dpkg-deb (nothing is installed on the host), for the qemu
# guest of guest-run.sh; print the directory it is in.
#
#   deploy/kernel/debian-kernel.sh debian-6.1|debian-6.12|linux-image-PKG
#
#   debian-6.1   what linux-image-amd64 (bookworm's default) names now
#   debian-6.12  what linux-image-6.12-amd64 (bookworm-security) names now
#   linux-image-6.1.0-50-amd64 ...: that exact package
#
# The directory ($KWORK/debian/PKG, KWORK default /work/kbuild) holds
# vmlinuz, config, System.map, lib/modules/VERSION (with modules.dep) and a
# stamp naming the package version; a second call for the same package
# is a no-op.
set -euo pipefail

KWORK=${KWORK:-/work/kbuild}
DEST=$KWORK/debian

die() { printf 'debian-kernel: %s\n' "$*" >&2; exit 1; }

# The package a meta package depends on today: linux-image-6.1.0-N-amd64.
resolve_meta() { # meta
	apt-cache depends --no-recommends --no-suggests "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

resolve() { # name
	local meta pkg
	case $1 in
	debian-6.1) meta=linux-image-amd64 ;;
	debian-6.12) meta=linux-image-6.12-amd64 ;;
	linux-image-[0-9]*) echo "$1"; return ;;
	*) die "unknown kernel '$1': debian-6.1, debian-6.12 or a linux-image-VERSION-amd64 package" ;;
	esac
	pkg=$(resolve_meta $meta)
	if [ -z "$pkg" ]; then
		# a fresh machine's package lists may be empty or old
		apt-get update -qq >&2 || die "apt-get update failed"
		pkg=$(resolve_meta $meta)
	fi
	[ -n "$pkg" ] || die "$meta names no linux-image package (apt-cache depends $meta)"
	echo "$pkg"
}

[ $# = 1 ] || die "usage: $0 debian-6.1|debian-6.12|linux-image-PKG"
pkg=$(resolve "$1")
dir=$DEST/$pkg
if [ -f "$dir/stamp" ]; then
	echo "$dir"
	exit 0
fi
command -v dpkg-deb >/dev/null || die "dpkg-deb missing"
command -v depmod >/dev/null || die "depmod missing: apt-get install kmod"
tmp=$DEST/.dl.$$
rm -rf "$tmp" "$dir"
mkdir -p "$tmp/x"
trap 'rm -rf "$tmp"' EXIT
# apt's download sandbox user cannot write root's directories
chmod 0777 "$tmp"
printf 'debian-kernel: apt-get download %s\n' "$pkg" >&2
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>"$tmp/err") ||
	die "apt-get download $pkg failed: $(tail -n1 "$tmp/err")"
dpkg-deb -x "$tmp"/*.deb "$tmp/x"
kver=$(ls "$tmp/x/lib/modules")
[ -n "$kver" ] && [ -f "$tmp/x/boot/vmlinuz-$kver" ] ||
	die "$pkg: no boot/vmlinuz or lib/modules in the package"
mkdir -p "$dir/lib"
mv "$tmp/x/boot/vmlinuz-$kver" "$dir/vmlinuz"
mv "$tmp/x/boot/config-$kver" "$dir/config"
mv "$tmp/x/boot/System.map-$kver" "$dir/System.map"
mv "$tmp/x/lib/modules" "$dir/lib/"
# the package leaves modules.dep to its postinst
depmod -b "$dir" -F "$dir/System.map" "$kver" || die "depmod $kver failed"
printf '%s %s %s\n' "$pkg" "$(dpkg-deb -f "$tmp"/*.deb Version)" "$kver" > "$dir/stamp"
echo "$dir"
