#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Disassemble the JIT image bpf_smoke printed ("JIT: xx xx ...") in a vmtest log.
#   deploy/kernel/jit-disasm.sh LOG [x86_64|arm64]
set -euo pipefail
log=$1 arch=${2:-x86_64}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
grep '^JIT: ' "$log" | sed 's/^JIT: //' | tr -d '\r' | xxd -r -p > "$tmp"
case "$arch" in
x86_64) objdump -D -b binary -m i386:x86-64 "$tmp" | sed -n '/<.data>:/,$p' ;;
arm64) aarch64-linux-gnu-objdump -D -b binary -m aarch64 "$tmp" | sed -n '/<.data>:/,$p' ;;
esac
