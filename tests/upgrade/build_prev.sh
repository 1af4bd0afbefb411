#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# build_prev.sh COMMIT OUT [TARGET...]: the classifier command as it was
# at COMMIT, built from this clone's history into OUT (OUT/build/classifier,
# and the other targets of that tree's Makefile named), once.  The upgrade
# tests run it to make pins of an earlier build.
set -e

commit=$1
out=$2
shift 2
targets="build/classifier $*"
src=$(cd "$(dirname "$0")/../.." && pwd)

built=1
for t in $targets; do
	[ -x "$out/$t" ] || built=0
done
if [ $built = 1 ] && [ "$(cat "$out/.commit" 2>/dev/null)" = "$commit" ]; then
	exit 0
fi
if ! git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null; then
	echo "build_prev: commit $commit is not in this clone's history (a shallow clone?): cannot build the previous layout's classifier" >&2
	exit 1
fi
rm -rf "$out"
mkdir -p "$out"
git -C "$src" archive "$commit" | tar -x -C "$out"
# A plain build, whatever this make was asked: no SANITIZE=1 or OUTPUT
# handed down through MAKEFLAGS (the old Makefile may know them too).
env -u MAKEFLAGS -u MFLAGS -u SANITIZE -u OUTPUT \
	make -C "$out" --no-print-directory $targets > "$out/build.log" 2>&1 || {
	tail -n 20 "$out/build.log" >&2
	exit 1
}
echo "$commit" > "$out/.commit"
