#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Quick gate for the 6.1 series (make kernel-check):
#   1. the series applies to Debian's linux-source-6.1 (git am, no fuzz),
#   2. checkpatch.pl is clean on every patch,
#   3. every object the series touches compiles, with -Werror, for x86_64
#      (tinyconfig + config.fragment) and arm64 (defconfig + arm64.fragment,
#      cross-compiled).
# It builds no kernel image. Work dir: $KCHECK (default /work/kbuild/check);
# kept between runs, so a warm run only recompiles the touched objects.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
KCHECK=${KCHECK:-/work/kbuild/check}
JOBS=${JOBS:-2}
TREE=$KCHECK/linux
TARBALL=/usr/src/linux-source-6.1.tar.xz
GIT=(git -C "$TREE" -c user.name=check -c user.email=check@classifier.invalid)
start=$(date +%s)

X86_OBJS="kernel/bpf/lpm_trie.o arch/x86/kernel/alternative.o kernel/bpf/core.o
	kernel/bpf/verifier.o kernel/bpf/trampoline.o kernel/trace/bpf_trace.o
	arch/x86/net/bpf_jit_comp.o"
ARM64_OBJS="arch/arm64/net/bpf_jit_comp.o kernel/bpf/core.o kernel/bpf/verifier.o
	kernel/bpf/trampoline.o kernel/bpf/lpm_trie.o kernel/trace/bpf_trace.o"

say() { printf '[kernel-check] %s\n' "$*"; }
die() { printf '[kernel-check] FAIL: %s\n' "$*" >&2; exit 1; }

for t in aarch64-linux-gnu-gcc gcc make flex bison bc; do
	command -v "$t" >/dev/null || die "missing $t (apt-get install build-essential bc bison flex libssl-dev libelf-dev gcc-aarch64-linux-gnu linux-source-6.1)"
done
[ -f "$TARBALL" ] || die "missing $TARBALL (apt-get install linux-source-6.1)"

if [ ! -d "$TREE/.git" ] || [ "$TARBALL" -nt "$TREE/.git/stock-stamp" ]; then
	say "unpacking $(basename "$TARBALL")"
	rm -rf "$KCHECK"
	mkdir -p "$KCHECK"
	tar -C "$KCHECK" -xf "$TARBALL"
	mv "$KCHECK/linux-source-6.1" "$TREE"
	git -C "$TREE" init -q -b stock
	git -C "$TREE" add -f -A
	"${GIT[@]}" commit -q -m stock
	touch "$TREE/.git/stock-stamp"
fi

# 1. apply
"${GIT[@]}" am --abort >/dev/null 2>&1 || true
"${GIT[@]}" checkout -q -f stock
"${GIT[@]}" branch -q -f check stock
"${GIT[@]}" checkout -q check
"${GIT[@]}" am -q "$HERE"/patches/*.patch ||
	die "series does not apply; see: git -C $TREE am --show-current-patch"
say "applies: $(git -C "$TREE" rev-list --count stock..check) patches on $(sed -n 's/^SUBLEVEL = //p' "$TREE/Makefile" | sed 's/^/6.1./')"

# 2. checkpatch
if ! out=$("$TREE"/scripts/checkpatch.pl --no-tree -q "$HERE"/patches/*.patch 2>&1); then
	printf '%s\n' "$out"
	die "checkpatch"
fi
say "checkpatch: clean"

# 3. compile touched objects
x86=$KCHECK/out-x86
if [ ! -f "$x86/.config" ] || [ "$HERE/config.fragment" -nt "$x86/.config" ]; then
	make -s -C "$TREE" O="$x86" tinyconfig >/dev/null
	"$TREE"/scripts/kconfig/merge_config.sh -m -O "$x86" "$x86/.config" "$HERE/config.fragment" >/dev/null 2>&1
	make -s -C "$TREE" O="$x86" olddefconfig >/dev/null
fi
# shellcheck disable=SC2086
make -s -C "$TREE" O="$x86" -j"$JOBS" KCFLAGS=-Werror $X86_OBJS > "$KCHECK/x86.log" 2>&1 ||
	{ tail -40 "$KCHECK/x86.log"; die "x86_64 compile"; }
say "x86_64: compiled $(echo $X86_OBJS | wc -w) objects"

arm=$KCHECK/out-arm64
A=(make -s -C "$TREE" O="$arm" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
if [ ! -f "$arm/.config" ] || [ "$HERE/arm64.fragment" -nt "$arm/.config" ]; then
	"${A[@]}" defconfig >/dev/null
	"$TREE"/scripts/kconfig/merge_config.sh -m -O "$arm" "$arm/.config" "$HERE/arm64.fragment" >/dev/null 2>&1
	"${A[@]}" olddefconfig >/dev/null
fi
# shellcheck disable=SC2086
"${A[@]}" -j"$JOBS" KCFLAGS=-Werror $ARM64_OBJS > "$KCHECK/arm64.log" 2>&1 ||
	{ tail -40 "$KCHECK/arm64.log"; die "arm64 compile"; }
say "arm64: compiled $(echo $ARM64_OBJS | wc -w) objects"

say "OK in $(( $(date +%s) - start ))s"
