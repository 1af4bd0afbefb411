#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# classifier in two minutes: two network namespaces joined by a veth, HTB
# on the sender's side, the classes and routes of deploy/example.batch,
# a known number of UDP packets to each destination, and the counts the
# classifier and HTB report next to what was sent; then shaping on a
# veth of 4 TX queues: classifier's own tree (mq, an HTB per queue),
# classes with rates spread over the queues, the tree as tc shows it, and
# the rate each class got beside the rate it was given.  Removes
# everything it made when it ends, however it ends.
#
#   deploy/demo.sh BINARY        (make demo: deploy/demo.sh build/classifier)
set -eu

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 path/to/classifier" >&2
	exit 2
fi
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root" >&2; exit 2; }
BIN=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
N=100
SND="cls-demo-$$-snd"
RCV="cls-demo-$$-rcv"
WORK=$(mktemp -d /tmp/cls-demo.XXXXXX)
BPFFS="$WORK/bpffs"

cleanup()
{
	local rc=$?
	trap - EXIT
	set +e
	[ -d "$BPFFS/classifier" ] && cls purge >/dev/null 2>&1
	mountpoint -q "$BPFFS" && umount "$BPFFS"
	ip netns del "$SND" 2>/dev/null
	ip netns del "$RCV" 2>/dev/null
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the classifier in the sender's namespace, pinning in a private bpffs
# (outside /sys, so ip netns exec's remount of /sys leaves it visible and
# gives classifier the namespace's own sysfs, where it reads XPS)
cls() { ip netns exec "$SND" "$BIN" --bpffs "$BPFFS" "$@"; }
htb_pkts()
{
	tc -n "$SND" -s class show dev veth-snd classid "$1" |
		awk '/Sent/ { print $4 }'
}
cls_pkts()
{
	cls -j stats | jq -r --arg c "$1" '.classes[] | select(.name == $c) | .packets'
}

# --- namespaces, veth, addresses (IPv6 without DAD), routes, HTB ---------
ip netns add "$SND"
ip netns add "$RCV"
for ns in "$SND" "$RCV"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.default.router_solicitations=0
	ip -n "$ns" link set lo up
done
ip link add veth-snd netns "$SND" type veth peer name veth-rcv netns "$RCV"
ip -n "$SND" addr add 10.200.0.1/24 dev veth-snd
ip -n "$SND" addr add fd00:200::1/64 dev veth-snd nodad
ip -n "$RCV" addr add 10.200.0.2/24 dev veth-rcv
ip -n "$RCV" addr add fd00:200::2/64 dev veth-rcv nodad
# web, bulk, blackhole (example.batch's routes), then default (no route)
DEST="198.51.100.10 2001:db8:10::10 203.0.113.10 2001:db8:20::10
	192.0.2.10 2001:db8:30::10 10.201.0.10 fd00:201::10"
for a in $DEST; do
	case $a in
	*:*) ip -n "$RCV" addr add "$a/128" dev lo nodad ;;
	*) ip -n "$RCV" addr add "$a/32" dev lo ;;
	esac
done
ip -n "$SND" link set veth-snd up
ip -n "$RCV" link set veth-rcv up
ip -n "$SND" route add default via 10.200.0.2
ip -n "$SND" -6 route add default via fd00:200::2
tc -n "$SND" qdisc add dev veth-snd root handle 1: htb default 99
for c in 10 20 30 40 99; do
	tc -n "$SND" class add dev veth-snd parent 1: classid "1:$c" htb \
		rate 1gbit quantum 60000
done
for _ in $(seq 50); do
	ip -n "$SND" link show veth-snd | grep -q LOWER_UP && break
	sleep 0.1
done
# first contact (ARP/ND) before counting, so only our packets are counted
ip netns exec "$SND" ping -c1 -w3 10.200.0.2 >/dev/null
ip netns exec "$SND" ping -6 -c1 -w3 fd00:200::2 >/dev/null

# the receiver counts what arrives
ip netns exec "$RCV" nft -f - <<'NFT'
table inet demo {
	counter got { }
	chain input {
		type filter hook input priority 0;
		udp dport 9000 counter name got
	}
}
NFT

mkdir -p "$BPFFS"
mount -t bpf bpf "$BPFFS"
echo "== namespaces $SND -> $RCV, HTB 1: on veth-snd, bpffs $BPFFS"
echo "== classifier -batch deploy/example.batch; attach dev veth-snd"
cls -batch "$HERE/example.batch"
cls attach dev veth-snd
cls class list | sed 's/^/   /'
cls stats reset

echo "== sending $N UDP packets to each of 8 addresses (v4 + v6 per class)"
for a in $DEST; do
	ip netns exec "$SND" bash -c \
		"for i in \$(seq $N); do echo demo > /dev/udp/$a/9000; done"
done

echo "== classifier stats"
cls stats | sed 's/^/   /'
echo "== expected vs counted"
printf '   %-10s %8s %11s %9s\n' class expected classifier "HTB"
ok=yes
for c in web bulk blackhole default; do
	want=$((2 * N))
	got=$(cls_pkts "$c")
	case $c in
	web) htb=$(htb_pkts 1:10) ; hwant=$want ;;
	bulk) htb=$(htb_pkts 1:20) ; hwant=$want ;;
	blackhole) htb=$(htb_pkts 1:40) ; hwant=0 ;;
	default) htb=$(htb_pkts 1:30) ; hwant=$want ;;
	esac
	note=""
	[ "$c" = blackhole ] && note="(dropped before HTB)"
	if [ "$got" -ne "$want" ] || [ "$htb" -ne "$hwant" ]; then
		# the default class may also hold IPv6 housekeeping (MLD)
		if [ "$c" = default ] && [ "$got" -ge "$want" ] &&
			[ "$htb" -eq "$got" ] && [ "$got" -le $((want + 10)) ]; then
			note="(+$((got - want)) IPv6 housekeeping)"
		else
			note="MISMATCH"
			ok=no
		fi
	fi
	printf '   %-10s %8s %11s %9s  %s\n' "$c" "$want" "$got" "$htb" "$note"
done
got=$(ip netns exec "$RCV" nft -j list counter inet demo got |
	jq -r '.nftables[] | select(.counter) | .counter.packets')
printf '   receiver got %s of %s packets (expected %s: all but blackhole)\n' \
	"$got" $((8 * N)) $((6 * N))
[ "$got" -eq $((6 * N)) ] || ok=no
# --- shaping: classifier's own tree on a 4-queue veth --------------------
echo "== shaping: a veth of 4 TX queues; classifier shape dev shp-snd queues all"
ip link add shp-snd netns "$SND" numtxqueues 4 numrxqueues 4 type veth \
	peer name shp-rcv netns "$RCV" numtxqueues 4 numrxqueues 4
ip -n "$SND" addr add 10.210.0.1/24 dev shp-snd
ip -n "$RCV" addr add 10.210.0.2/24 dev shp-rcv
ip -n "$SND" link set shp-snd up
ip -n "$RCV" link set shp-rcv up
ip -n "$SND" route add 10.211.0.0/16 via 10.210.0.2
ip -n "$SND" neigh replace 10.210.0.2 dev shp-snd nud permanent lladdr \
	"$(ip -n "$RCV" -br link show shp-rcv | awk '{print $3}')"
SHAPED="gold:40 silver:20 bronze:10 basic:5"
i=0
for cr in $SHAPED; do
	i=$((i + 1))
	ip -n "$RCV" addr add "10.211.$i.10/32" dev lo
done
for _ in $(seq 50); do
	ip -n "$SND" link show shp-snd | grep -q LOWER_UP && break
	sleep 0.1
done
gcc -O2 -o "$WORK/udpsend" "$HERE/../tests/netns/udpsend.c"
cls attach dev shp-snd
cls shape dev shp-snd queues all rate 1gbit default 10mbit
i=0
for cr in $SHAPED; do
	i=$((i + 1))
	cls class add "1:$((i + 15))" name "${cr%:*}" rate "${cr#*:}mbit"
	cls route add "10.211.$i.0/24" class "${cr%:*}"
done
echo "== the classes (each in its queue: major = queue + 1) and the tree tc shows"
cls class list | grep rate | sed 's/^/   /'
tc -n "$SND" qdisc show dev shp-snd | sed 's/^/   /'
tc -n "$SND" class show dev shp-snd | grep '^class htb' | sort | sed 's/^/   /'
cls status | sed -n '/^shaping/,/^attached/p' | grep -v '^attached' |
	sed 's/^/   /'

echo "== UDP at twice each class's rate for 4 s; the rate each got (HTB's bytes, the last 3 s)"
pids=
i=0
for cr in $SHAPED; do
	i=$((i + 1))
	pps=$(( ${cr#*:} * 2 * 1000000 / (1514 * 8) ))
	ip netns exec "$SND" "$WORK/udpsend" -i $((1000000 / pps)) \
		-c $((pps * 4)) -l 1472 "10.211.$i.10" 9000 >/dev/null 2>&1 &
	pids="$pids $!"
done
# one snapshot of every HTB class's bytes, and its time
snap()
{
	date +%s%N > "$WORK/$1.t"
	tc -n "$SND" -s class show dev shp-snd > "$WORK/$1"
}
sent_bytes() # SNAPSHOT CLASSID
{
	awk -v id="$2" '$2 == "htb" && $3 == id { f = 1; next }
		f && /Sent/ { print $2; exit }' "$WORK/$1"
}
sleep 1
snap s0
sleep 3
snap s1
dt=$(( $(cat "$WORK/s1.t") - $(cat "$WORK/s0.t") ))
printf '   %-7s %-5s %-6s %10s %10s\n' class queue HTB given got
for cr in $SHAPED; do
	c=${cr%:*}
	id=$(cls -j class list | jq -r ".[] | select(.name == \"$c\") | .class")
	q=$(cls -j class list | jq -r ".[] | select(.name == \"$c\") | .shape.queue")
	got=$(echo "scale=1; ($(sent_bytes s1 "$id") - $(sent_bytes s0 "$id")) * 8 * 1000 / $dt" | bc)
	note=
	# HTB counts the frames it sent: within 10 % of the rate
	if [ "$(echo "$got < ${cr#*:} * 0.9 || $got > ${cr#*:} * 1.1" | bc)" = 1 ]; then
		note=MISMATCH
		ok=no
	fi
	printf '   %-7s %-5s %-6s %7s Mbit/s %6s Mbit/s %s\n' "$c" "$q" "$id" \
		"${cr#*:}" "$got" "$note"
done
# shellcheck disable=SC2086
kill $pids 2>/dev/null || true
wait 2>/dev/null || true

if [ $ok = yes ]; then
	echo "== OK: classifier, HTB and receiver counts match what was sent; each shaped class got its rate (10 %)"
else
	echo "== FAILED: counts differ from what was sent" >&2
	exit 1
fi
