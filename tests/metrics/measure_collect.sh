#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a scrape costs with every class in use: 4096 classes, an egress and
# an XDP attachment, in a network namespace and a bpffs of its own (both
# removed on exit).  Prints the medians and maxima of
# `metrics_driver time` (ms), then the syscalls of one exposition.
#
#   tests/metrics/measure_collect.sh [BUILD_DIR] [ROUNDS]
# A measurement, not a test: not run by make check.
set -eu

BUILD=$(realpath "${1:-build}")
ROUNDS=${2:-200}
C=$BUILD/classifier
DRIVER=$BUILD/tests/metrics_driver
WORK=$(mktemp -d /tmp/cls-measure.XXXXXX)
NS=cls-measure-$$

cleanup()
{
	set +e
	ip netns exec "$NS" true 2>/dev/null &&
		nsenter --net="/run/netns/$NS" "$C" --bpffs "$WORK/bpffs" purge
	umount "$WORK/bpffs" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

mkdir "$WORK/bpffs"
mount -t bpf bpf "$WORK/bpffs"
ip netns add "$NS"
ip -n "$NS" link add v0 type veth peer name v1
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
for i in $(seq 1 4095); do
	printf 'class add 2:%x name class_%d\n' "$i" "$i"
done >"$WORK/classes.batch"
in_ns "$C" --bpffs "$WORK/bpffs" -batch "$WORK/classes.batch"
in_ns "$C" --bpffs "$WORK/bpffs" attach dev v0
in_ns "$C" --bpffs "$WORK/bpffs" attach dev v1 xdp xdp-mode generic
echo "# $(nproc) CPUs, $(uname -r)"
in_ns "$DRIVER" --bpffs "$WORK/bpffs" time "$ROUNDS"
if command -v strace >/dev/null; then
	in_ns strace -f -c -o "$WORK/strace" "$DRIVER" --bpffs "$WORK/bpffs" \
		prom >/dev/null
	echo "# syscalls of one exposition to stdout (strace -c)"
	grep -E ' (bpf|mmap|munmap|openat|write|total)$' "$WORK/strace"
fi
