#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# deb.sh OUTDIR: build the Debian source and binary packages from a copy
# of this tree in OUTDIR (so the work tree stays clean and nothing lands
# outside OUTDIR), then run lintian on them: any error fails.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
version=$(cd "$top" && dpkg-parsechangelog -S Version)
rm -rf "$1"
mkdir -p "$1"
out=$(cd "$1" && pwd)
src=$out/classifier-$version
mkdir "$src"
# the files git knows (tracked or new, not ignored) as they are now
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh |
	tar -cf - -T -) | tar -C "$src" -xf -

# nocheck: the tests need root and network namespaces (make check)
(cd "$src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc \
	>"$out/build.log" 2>&1) || {
	tail -n 30 "$out/build.log" >&2
	echo "deb: build failed ($out/build.log)" >&2
	exit 1
}
rm -rf "$src"

changes=$(ls "$out"/classifier_"$version"_*.changes)
lintian --fail-on error --display-info --tag-display-limit 0 "$changes" \
	>"$out/lintian.log" 2>&1 || {
	cat "$out/lintian.log" >&2
	echo "deb: lintian reports errors" >&2
	exit 1
}
cat "$out/lintian.log"
ls "$out"/*.deb
