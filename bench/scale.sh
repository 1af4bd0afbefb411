#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Classes at scale (issue 22), one run: class load, class add, class
# list and stats -j at the most classes the layout holds (CLS_MAX_CLASSES:
# 4096 with the default class), wall time with exec, median of R runs;
# and the memory the class maps take at C classes on 2, 64 and 256 CPUs,
# as the kernel accounts it (bytes_memlock of maps of those shapes, made
# in the private bpffs and removed).
#   bench/scale.sh [-r RUNS] BUILD_DIR    (needs root, bpftool, jq)
set -eu

RUNS=11
while [ $# -gt 1 ]; do
	case $1 in
	-r) RUNS=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [-r RUNS] BUILD_DIR" >&2; exit 2; }
CLS=$(realpath "$1/classifier")
WORK=$(mktemp -d /tmp/cls-scale.XXXXXX)
BPFFS=$WORK/bpffs
cleanup()
{
	umount "$BPFFS" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
mkdir "$BPFFS"
mount -t bpf bpf "$BPFFS"
cls() { "$CLS" --bpffs "$BPFFS" "$@"; }

cls class add 1:ffff name setup
cls class del setup
MAX=$(cls -j status | jq .max_classes)
N=$((MAX - 1)) # and the default class
# set FILE N MARK: N classes 1:1.. named c1.., each with mark MARK
set_file()
{
	awk -v n="$2" -v mark="$3" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "class %x:%x name k%d mark %d\n", \
				int(i / 65536) + 1, i % 65536, i, mark
	}' > "$1"
}
set_file "$WORK/a" "$N" 1
set_file "$WORK/b" "$N" 2

# ms CMD...: wall milliseconds of one run
ms()
{
	local t0 t1
	t0=$(date +%s%N)
	"$@" > /dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}
# median of the microsecond figures on stdin, in ms with 2 decimals
median()
{
	sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f", m / 1000 }'
}

cls class load "$WORK/a"
cls stats on
bare=$(for i in $(seq "$RUNS"); do ms "$CLS" class help; done | median)
load=$(for i in $(seq "$RUNS"); do
	ms cls class load "$WORK/b"
	ms cls class load "$WORK/a" > /dev/null
done | median)
same=$(for i in $(seq "$RUNS"); do ms cls class load "$WORK/a"; done | median)
list=$(for i in $(seq "$RUNS"); do ms cls class list; done | median)
stats=$(for i in $(seq "$RUNS"); do ms cls -j stats; done | median)
cls class del k1
add=$(for i in $(seq "$RUNS"); do
	ms cls class add 1:1 name k1 mark 1
	cls class del k1
done | median)

echo "## classes at scale: $N classes and the default class ($(date -u +%F), $(uname -r), $(nproc) CPUs, commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "| what (median of $RUNS, wall time with exec) | ms |"
echo "|---|---|"
echo "| exec alone: classifier class help (no map touched) | $bare |"
echo "| class load, $N classes each changed | $load |"
echo "| class load, the same $N classes (nothing written) | $same |"
echo "| class add with $((N - 1)) present | $add |"
echo "| class list | $list |"
echo "| stats -j | $stats |"

# memlock NAME VALUE ENTRIES: bytes the kernel accounts an array of that shape
memlock()
{
	bpftool map create "$BPFFS/m" type array key 4 value "$2" entries "$3" \
		name "$1" flags 1024
	bpftool -j map show pinned "$BPFFS/m" | jq .bytes_memlock
	rm -f "$BPFFS/m"
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo
echo "| classes C | CPUs | classes + names + clocks | stats, per CPU (2C + 16) x 16 B | rate_stats, per CPU 2C x 32 B | total |"
echo "|---|---|---|---|---|---|"
for c in 4096 100000; do
	shared=$(($(memlock c "64" "$c") + $(memlock m 128 "$c") + $(memlock r 64 "$c")))
	for cpus in 2 64 256; do
		st=$(memlock s 16 $((cpus * (2 * c + 16))))
		rs=$(memlock rs 32 $((cpus * 2 * c)))
		echo "| $c | $cpus | $(mib "$shared") | $(mib "$st") | $(mib "$rs") | $(mib $((shared + st + rs))) |"
	done
done
