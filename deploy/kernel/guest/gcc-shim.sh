#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installed as /usr/local/bin/gcc in the guest (see netns.sh): tests/netns/
# run.sh compiles udpsend.c with gcc, and the initramfs carries no compiler.
# vmtest.sh built udpsend on the host, with the same flags, from the same
# udpsend.c, and stored the source's sha256 next to it. This hands out that
# binary only when asked to compile a file with exactly that content, so a
# changed udpsend.c or any other compile fails loudly instead of silently
# running something else.
out="" src=""
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	-*) ;;
	*) src=$1 ;;
	esac
	shift
done
want=$(cat /usr/local/lib/udpsend.sha256)
if [ -z "$out" ] || [ -z "$src" ] ||
	[ "$(sha256sum < "$src" | cut -d' ' -f1)" != "$want" ]; then
	echo "gcc (vmtest stand-in): can only provide udpsend built on the host" \
		"from udpsend.c sha256 $want; asked for '$src'" >&2
	exit 1
fi
cp /usr/local/lib/udpsend "$out"
