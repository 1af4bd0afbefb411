#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installed as /usr/local/bin/gcc in the guest: tests compile small helpers
# (tests/netns/udpsend.c, peer.c, tests/metrics/bpf_stats_hold.c) with gcc,
# and the initramfs carries no compiler. initramfs.sh built each of them on
# the host, with its caller's flags, and stored it under the sha256 of its
# source (/usr/local/lib/gcc-shim/SHA256). This hands out that binary only
# when asked to compile a file with exactly that content, so a changed
# source or any other compile fails loudly instead of running something else.
out="" src=""
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	-*) ;;
	*) src=$1 ;;
	esac
	shift
done
store=/usr/local/lib/gcc-shim
sum=
[ -n "$src" ] && [ -f "$src" ] && sum=$(sha256sum < "$src" | cut -d' ' -f1)
if [ -z "$out" ] || [ -z "$sum" ] || [ ! -x "$store/$sum" ]; then
	echo "gcc (guest stand-in): no compiler here, only builds made on the" \
		"host from these sources: $(ls "$store" | tr '\n' ' '); asked for '$src'" >&2
	exit 1
fi
cp "$store/$sum" "$out"
