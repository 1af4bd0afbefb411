#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Building the shaping tree (issue 21), one run, in a network namespace
# with a private bpffs (tests/netns/lib.sh; everything removed on exit):
#   bench/shape.sh [--classes N] BUILD_DIR
# On a 4-queue veth, N classes with rates (default: as many as a layout
# holds, CLS_MAX_CLASSES - 1):
#  1. classifier: the classes added one by one into a shaped device (one
#     journalled change and one request each, one -batch), then, with
#     them in place, `shape dev D queues all` making the whole tree again
#     (rtnetlink in acked batches);
#  2. tc: `tc -batch` of the same tree (mq, 4 HTBs, their root and
#     default classes, N classes), on the same device from scratch;
#  3. one rate change with N classes in place: `classifier class set
#     NAME rate R` (a process, the pins opened, the catalogue read, the
#     journal, one netlink change), the median and worst of 20, against
#     `tc class change` of the same class.
# Prints Markdown (bench/results/shape.md keeps a run).
set -euo pipefail

N=
while [ $# -gt 1 ]; do
	case $1 in
	--classes) N=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--classes N] BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
CLASSIFIER=$BUILD/classifier
REASON_FILE=
# shellcheck source=tests/netns/lib.sh
. "$SRC/tests/netns/lib.sh"
if [ -z "$N" ]; then
	N=$(($(sed -n 's/^#define CLS_MAX_CLASSES \([0-9]*\)/\1/p' \
		"$SRC/maps/classifier_abi.h") - 1))
fi

now() { date +%s%N; }
ms() { echo "scale=1; ($2 - $1) / 1000000" | bc; }

VETH_QUEUES=4
setup_pair

# The classes: rates of 1-100 Mbit/s, minors from 0x10.
awk -v n="$N" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "class add 1:%x name cust%d rate %dmbit ceil %dmbit\n",
			i + 16, i, i % 100 + 1, i % 100 + 11
}' > "$WORK/classes.batch"

# 1. classifier: the classes one change each into a shaped device
# (spread over its queues by rate), then the tree made again whole with
# them in place
cls shape dev "$VS" queues all
t3=$(now)
cls -batch "$WORK/classes.batch"
t4=$(now)
got=$(tc -n "$NS_S" class show dev "$VS" | grep -c "^class htb")
[ "$got" = $((N + 8)) ] || fail "one by one: $got HTB classes, not $((N + 8))"
cls shape del dev "$VS"
t1=$(now)
cls shape dev "$VS" queues all
t2=$(now)
got=$(tc -n "$NS_S" class show dev "$VS" | grep -c "^class htb")
[ "$got" = $((N + 8)) ] || fail "the tree has $got HTB classes, not $((N + 8))"

# the tree classifier made, as tc would make it
cls -j class list > "$WORK/classes.json"

# 3. one rate change, N classes in place
rates=()
for i in $(seq 20); do
	a=$(now)
	cls class set "cust$((i * 97 % N))" rate "$((i + 1))mbit"
	b=$(now)
	rates+=($(( (b - a) / 1000 )))
done
tc_rates=()
for i in $(seq 20); do
	id=$(jq -r ".[] | select(.name == \"cust$((i * 89 % N))\") | .class" \
		"$WORK/classes.json")
	a=$(now)
	tc -n "$NS_S" class change dev "$VS" classid "$id" htb \
		rate "$((i + 2))mbit" ceil "$((i + 20))mbit"
	b=$(now)
	tc_rates+=($(( (b - a) / 1000 )))
done
# the same inside one process: 1000 rate changes in one -batch
awk -v n="$N" 'BEGIN {
	for (i = 0; i < 1000; i++)
		printf "class set cust%d rate %dmbit ceil %dmbit\n", i * 37 % n,
			i % 90 + 2, i % 90 + 20
}' > "$WORK/changes.batch"
t7=$(now)
cls -batch "$WORK/changes.batch"
t8=$(now)
cls shape del dev "$VS"
cls purge

# 2. tc -batch of the same tree
{
	echo "qdisc add dev $VS root handle 7fff: mq"
	for q in 1 2 3 4; do
		echo "qdisc add dev $VS parent 7fff:$q handle $q: htb default 2"
		echo "class add dev $VS parent $q: classid $q:1 htb rate 100gbit"
		echo "class add dev $VS parent $q:1 classid $q:2 htb rate 10mbit ceil 100gbit prio 7"
	done
	jq -r --arg d "$VS" '.[] | select(.shape) |
		"class add dev \($d) parent \(.class | split(":")[0]):1 classid \(.class) htb rate \(.shape.rate_bytes_per_sec * 8)bit ceil \(.shape.ceil_bytes_per_sec * 8)bit quantum \([[(.shape.rate_bytes_per_sec / 10 | floor), 200000] | min, 1600] | max)"' \
		"$WORK/classes.json"
} > "$WORK/tree.tc"
t5=$(now)
tc -n "$NS_S" -batch "$WORK/tree.tc"
t6=$(now)
got=$(tc -n "$NS_S" class show dev "$VS" | grep -c "^class htb")
[ "$got" = $((N + 8)) ] || fail "tc -batch: $got HTB classes, not $((N + 8))"
tc -n "$NS_S" qdisc del dev "$VS" root

median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
worst() { printf '%s\n' "$@" | sort -n | tail -n1; }

cat <<EOF
# Shaping tree: classifier against tc, $N classes, 4-queue veth

\`bench/shape.sh $BUILD\` ($(date -u +%F), $(uname -r), $(nproc) CPUs,
commit $(git -C "$SRC" rev-parse --short HEAD)); one run, wall time.

| what | classifier | tc | ratio |
|---|---|---|---|
| tree of $N classes (mq, 4 HTBs), classes in place: \`shape dev\` / \`tc -batch\` | $(ms "$t1" "$t2") ms | $(ms "$t5" "$t6") ms | $(echo "scale=2; ($t2 - $t1) / ($t6 - $t5)" | bc) |
| $N classes added to a shaped device, one \`-batch\` (a journalled change each) | $(ms "$t3" "$t4") ms | | $(echo "scale=2; ($t4 - $t3) / ($t6 - $t5)" | bc) against \`tc -batch\` |
| one rate change, $N classes in place, a process each: median (worst of 20) | $(median "${rates[@]}") us ($(worst "${rates[@]}")) | $(median "${tc_rates[@]}") us ($(worst "${tc_rates[@]}")) | $(echo "scale=2; $(median "${rates[@]}") / $(median "${tc_rates[@]}")" | bc) |
| one rate change, $N classes in place, 1000 in one \`-batch\`: mean | $(echo "scale=2; ($t8 - $t7) / 1000000000" | bc) ms | | |

A rate change in a process of its own is a whole \`classifier\` process (pins opened and checked,
the class catalogue read, the journal written twice, one netlink
request for the HTB class and its leaf), as \`tc class change\` is a whole
\`tc\` process.
EOF
