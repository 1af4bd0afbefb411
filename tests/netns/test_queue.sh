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
tc -n "$NS_S" qdisc replace dev "$VS" root handle 7fff: mq
for q in 0 1 2 3; do
	m=$((q + 1))
	tc -n "$NS_S" qdisc add dev "$VS" parent "7fff:$m" handle "$m:" htb default 2
	tc -n "$NS_S" class add dev "$VS" parent "$m:" classid "$m:1" htb \
		rate 10gbit quantum 60000
	for c in 2 10 11; do
		tc -n "$NS_S" class add dev "$VS" parent "$m:1" classid "$m:$c" \
			htb rate 1gbit ceil 10gbit quantum 60000
	done
done

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
