#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A class's TX queue with real UDP: a 4-queue veth under an mq root with
# one HTB per queue (major = queue + 1, made here with tc), classes in
# queues 0-3 (priority = classid of that queue's HTB, and the queue
# field).  What each class sends lands in its queue's HTB class; the
# default class (no queue) only gets what no route covers, in whichever
# queue the kernel hashes it to; a queue past the device's count wraps.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=50
VETH_QUEUES=4
setup_pair
# mq names its leaves 7fff:1..4 for TX queues 0..3: HTB q+1: under 7fff:q+1
setup_mq "$NS_S" "$VS" 10 11

# pkts_of CLASSID...: packets HTB sent from those classes, summed.
pkts_of()
{
	local c n=0
	for c in "$@"; do
		n=$((n + $(htb_pkts "$c")))
	done
	echo $n
}

# queue_pkts Q: packets the mq leaf of TX queue Q sent.
queue_pkts()
{
	tc -n "$NS_S" -s qdisc show dev "$VS" parent "7fff:$(($1 + 1))" |
		awk '/Sent/ { print $4; exit }'
}

cls class add 1:10 name q0 queue 0
cls class add 2:10 name q1 queue 1
cls class add 3:10 name q2 queue 2
cls class add 4:10 name q3 queue 3
cls route add "${WEB4%.*}.0/24" class q0
cls route add "${BULK4%.*}.0/24" class q1
cls route add "${DROP4%.*}.0/24" class q2
cls route add 2001:db8:10::/48 class q3
cls route add 2001:db8:20::/48 class q1
cls attach dev "$VS"

# the field as the CLI shows it
cls class list | grep -qx "class 3:10 name q2 queue 2" ||
	fail "class list: $(cls class list | grep q2)"
[ "$(cls -j class list | jq '.[] | select(.name == "q3") | .queue')" = 3 ] ||
	fail "-j class list: no queue 3 for q3"
[ "$(cls -j class list | jq '.[] | select(.name == "default") | .queue')" = null ] ||
	fail "-j class list: the default class has a queue"

declare -A before
for c in 1:10 2:10 3:10 4:10 1:2 2:2 3:2 4:2; do
	before[$c]=$(htb_pkts "$c")
done
for q in 0 1 2 3; do
	before[q$q]=$(queue_pkts $q)
done
before[cdflt]=$(stat_pkts default)
send "$WEB4" $N
send "$BULK4" $N
send "$BULK6" $N
send "$DROP4" $N
send "$WEB6" $N
send "$DFLT4" $N
send "$DFLT6" $N
delta() { echo $(($(htb_pkts "$1") - ${before[$1]})); }
expect_eq "HTB 1:10 (queue 0)" "$(delta 1:10)" $N
expect_eq "HTB 2:10 (queue 1, v4 and v6)" "$(delta 2:10)" $((2 * N))
expect_eq "HTB 3:10 (queue 2)" "$(delta 3:10)" $N
expect_eq "HTB 4:10 (queue 3)" "$(delta 4:10)" $N
# each queue's qdisc sent its class's packets (and default traffic)
q1=$(($(queue_pkts 1) - ${before[q1]}))
expect_ge "mq leaf of queue 1" "$q1" $((2 * N))
dflt=$(($(delta 1:2) + $(delta 2:2) + $(delta 3:2) + $(delta 4:2)))
# unrouted: 2N; a few IPv6 MLD/ND packets may join them, nothing else
expect_ge "HTB default classes" "$dflt" $((2 * N))
[ "$dflt" -le $((2 * N + 10)) ] ||
	fail "HTB default classes: $dflt, more than the $((2 * N)) unrouted"
# every packet of the default class went to a default HTB class
expect_eq "classifier default = HTB defaults" \
	$(($(stat_pkts default) - before[cdflt])) "$dflt"

# queue 5 on 4 queues wraps: 5 mod 4 = queue 1, where HTB 1: is not:
# the packets go to queue 1's default class 2:2.
cls class set q0 queue 5
b=$(htb_pkts 2:2)
b10=$(htb_pkts 1:10)
send "$WEB4" $N
expect_ge "queue 5 wraps to queue 1 (HTB 2:2)" $(($(htb_pkts 2:2) - b)) $N
expect_eq "HTB 1:10 with queue 5" $(($(htb_pkts 1:10) - b10)) 0

# queue none: the kernel's own pick (a hash of the flow) for class q0
cls class set q0 queue none
cls class list | grep -qx "class 1:10 name q0" ||
	fail "queue none: $(cls class list | grep q0)"

# Locally generated traffic from connected sockets, whose first packet
# caches a queue in the socket (netdev_pick_tx asks the socket first).
# moved_during CMD...: CMD in the background; after 1 s class q0 moves
# from queue 0 (1:10) to queue 1 (2:11); d10, d12 (queue 0's default)
# and d211: what HTB sent from each meanwhile.
cls class set q0 queue 0
moved_during()
{
	local b10 b12 b211 pid
	b10=$(htb_pkts 1:10) b12=$(htb_pkts 1:2) b211=$(htb_pkts 2:11)
	"$@" >/dev/null &
	pid=$!
	sleep 1
	cls class set q0 classid 2:11 queue 1
	wait $pid
	d10=$(($(htb_pkts 1:10) - b10)) d12=$(($(htb_pkts 1:2) - b12))
	d211=$(($(htb_pkts 2:11) - b211))
}

# connected UDP: the class's queue at its first packet, kept after a move
# (a listener, so that no port unreachable fails a send)
in_rcv "$PEER" udp "$WEB4" "$PORT" > "$WORK/peer.out" &
track_pid $!
for _ in $(seq 50); do
	grep -q ready "$WORK/peer.out" && break
	sleep 0.1
done
moved_during in_snd "$UDPSEND" -C -i 20000 -c 100 "$WEB4" "$PORT"
log "connected UDP, moved after 1 s of 2: 1:10 $d10, 1:2 (queue 0's default) $d12, 2:11 $d211"
expect_eq "connected UDP: every datagram in queue 0" $((d10 + d12)) 100
expect_ge "connected UDP: its class's queue before the move" "$d10" 30
expect_eq "connected UDP: none in the new queue after the move" "$d211" 0
expect_ge "connected UDP: after the move, queue 0's default" "$d12" 30

# TCP picks again when nothing is in flight (ooo_okay): it follows
cls class set 2:11 classid 1:10 queue 0
in_rcv iperf3 -s -B "$WEB4" -1 -D --logfile "$WORK/iperf3.log"
sleep 0.3
moved_during in_snd iperf3 -c "$WEB4" -t 2 -b 20M -l 1400
log "TCP at 20 Mbit/s, moved after 1 s of 2: 1:10 $d10, 1:2 $d12, 2:11 $d211"
expect_ge "TCP: its class's queue before the move" "$d10" 100
expect_ge "TCP: the new queue's class after the move" "$d211" 100
