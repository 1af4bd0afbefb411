#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What a metrics read costs with every class in use: 4096 classes, an
# egress and an XDP attachment, in a network namespace and a bpffs of its
# own (both removed on exit).  Prints metricsbench's medians and maxima
# (ms), the time of whole scrapes of `classifier exporter` through curl,
# and the syscalls of one `classifier stats prometheus`.
#
#   bench/metrics.sh [BUILD_DIR] [ROUNDS]
# Builds what it needs (as bench/run.sh does).  Needs root, iproute2,
# curl, strace (optional).  A measurement, not a test.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
ROUNDS=${2:-200}
make -s -C "$SRC" OUTPUT="$BUILD" "$BUILD/classifier" >&2
make -s -C "$SRC" -f bench/bench.mk OUTPUT="$BUILD" \
	"$BUILD/bench/metricsbench" >&2
BUILD=$(cd "$BUILD" && pwd)
WORK=$(mktemp -d /tmp/cls-metricsbench.XXXXXX)
NS=cls-metricsbench-$$
ADDR=127.0.0.1:9435
EXPORTER=

in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
C() { in_ns "$BUILD/classifier" --bpffs "$WORK/bpffs" "$@"; }

cleanup()
{
	set +e
	[ -z "$EXPORTER" ] || { kill "$EXPORTER"; wait "$EXPORTER"; }
	[ -d "$WORK/bpffs/classifier" ] && C purge
	umount "$WORK/bpffs" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$WORK/bpffs"
mount -t bpf bpf "$WORK/bpffs"
ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" link add v0 type veth peer name v1
ip -n "$NS" link set v0 up
ip -n "$NS" link set v1 up
for i in $(seq 1 4095); do
	printf 'class add 2:%x name class_%d\n' "$i" "$i"
done >"$WORK/classes.batch"
C -batch "$WORK/classes.batch"
C attach dev v0
C attach dev v1 xdp xdp-mode generic
echo "# $(nproc) CPUs, $(uname -r)"
in_ns "$BUILD/bench/metricsbench" "$WORK/bpffs" "$ROUNDS"

if command -v curl >/dev/null; then
	# no shell function: $! must be the exporter itself
	nsenter --net="/run/netns/$NS" "$BUILD/classifier" \
		--bpffs "$WORK/bpffs" exporter listen "$ADDR" &
	EXPORTER=$!
	for _ in $(seq 100); do
		in_ns curl -sf -o /dev/null "http://$ADDR/metrics" && break
		sleep 0.05
	done
	for _ in $(seq 50); do
		in_ns curl -sf -o /dev/null -w '%{time_total}\n' \
			"http://$ADDR/metrics"
	done | sort -n | awk '{ t[NR] = $1 * 1000 }
		END { printf "scrape_curl %.3f %.3f\n", t[int(NR / 2) + 1], t[NR] }'
fi
if command -v strace >/dev/null; then
	in_ns strace -f -c -o "$WORK/strace" "$BUILD/classifier" \
		--bpffs "$WORK/bpffs" stats prometheus >/dev/null
	echo "# syscalls of one 'classifier stats prometheus' (strace -c)"
	grep -E ' (bpf|mmap|munmap|openat|write|total)$' "$WORK/strace"
fi
