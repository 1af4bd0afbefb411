#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# classifier shape makes the HTB tree itself: on a 4-queue veth an mq
# root with one HTB per queue, classes with rates spread over the queues
# as HTB classes tc shows with those rates; on one HTB, UDP offered at
# twice a class's rate arrives at the rate (+-5 %, 10-200 Mbit/s), each
# class's packets counted in its HTB class and only unrouted ones in the
# default class; on four queues UDP to classes in queues 0-3 lands in
# those queues' HTB classes, and XPS on the device is refused.  A root qdisc of someone else's is refused unless
# replace, a leaf the kernel lacks is refused, and detach and purge leave
# the device as it was found.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/police.sh
. "$(dirname "$0")/police.sh"

# htb_overlimits CLASSID: times HTB held the class back
htb_overlimits()
{
	tc -n "$NS_S" -s class show dev "$VS" classid "$1" |
		sed -n 's/.*overlimits \([0-9]*\).*/\1/p'
}

VETH_QUEUES=4
setup_pair
found=$(tc -n "$NS_S" qdisc show dev "$VS")
cls attach dev "$VS"

# --- the tree on four queues: classes spread by rate --------------------
cls shape dev "$VS" queues all
tc -n "$NS_S" qdisc show dev "$VS" | grep -q "^qdisc mq 7fff: root" ||
	fail "no mq root: $(tc -n "$NS_S" qdisc show dev "$VS")"
for q in 1 2 3 4; do
	tc -n "$NS_S" qdisc show dev "$VS" |
		grep -q "^qdisc htb $q: parent 7fff:$q .*default 0x2" ||
		fail "no HTB $q: under 7fff:$q"
	tc -n "$NS_S" class show dev "$VS" classid "$q:2" | grep -q "htb $q:2" ||
		fail "no default class $q:2"
done
for i in 0 1 2 3; do
	cls class add "1:1$i" name "cust$i" rate "$((10 * (i + 1)))mbit"
done
# 40, 30, 20, 10: each new class goes to the queue with the least
cls class add 1:20 name cust4 rate 15mbit
queues=$(cls -j class list |
	jq -r '[.[] | select(.shape) | "\(.name)=\(.shape.queue)"] | join(" ")')
expect_eq "queues of the classes" "$queues" \
	"cust0=0 cust1=1 cust2=2 cust3=3 cust4=0"
tc -n "$NS_S" class show dev "$VS" classid 4:13 |
	grep -q "parent 4:1 .*rate 40Mbit ceil 40Mbit" ||
	fail "HTB class 4:13: $(tc -n "$NS_S" class show dev "$VS" classid 4:13)"
# the classid names it by its minor wherever it went
cls class set 1:13 rate 45mbit ceil 60mbit
tc -n "$NS_S" class show dev "$VS" classid 4:13 |
	grep -q "rate 45Mbit ceil 60Mbit" || fail "rate change not in HTB 4:13"
expect_eq "status, queue 3" \
	"$(cls -j status | jq -c '.shaping[0].queue[3] | [.classes, .rate_bytes_per_sec]')" \
	"[1,5625000]"
cls status | grep -q "^shaping  $VS: mq, 4 HTBs" || fail "status: no tree"
# packets reach their class's HTB class in its queue: the class's queue
# is written to skb->queue_mapping (its `queue`, which classifier set)
cls route add 198.51.100.0/24 class cust0
cls route add 203.0.113.0/24 class cust1
cls route add 192.0.2.0/24 class cust2
cls route add 2001:db8:10::/48 class cust3
sleep 0.3
d0=$(htb_default_pkts)
send "$WEB4" 100
send "$BULK4" 100
send "$DROP4" 100
send "$WEB6" 100
send "$DFLT4" 100
expect_eq "queue 0's HTB class 1:10" "$(htb_pkts 1:10)" 100
expect_eq "queue 1's HTB class 2:11" "$(htb_pkts 2:11)" 100
expect_eq "queue 2's HTB class 3:12" "$(htb_pkts 3:12)" 100
expect_eq "queue 3's HTB class 4:13" "$(htb_pkts 4:13)" 100
expect_eq "the default classes (unrouted only)" $(($(htb_default_pkts) - d0)) 100
cls route flush
# a class asked into a queue, and moved: a new HTB class, the old gone
cls class add 1:21 name pinned rate 1mbit queue 2
tc -n "$NS_S" class show dev "$VS" classid 3:21 | grep -q "rate 1Mbit" ||
	fail "queue 2 not taken: $(cls class list | grep pinned)"
cls class set pinned queue 1
tc -n "$NS_S" class show dev "$VS" classid 2:21 | grep -q "rate 1Mbit" ||
	fail "no HTB class 2:21 after the move"
tc -n "$NS_S" class show dev "$VS" | grep -q " 3:21 " && fail "3:21 left"
cls class list | grep -q "^class 2:21 name pinned .*queue 1" ||
	fail "class list: $(cls class list | grep pinned)"
cls class del pinned
# XPS picks the queue first: refused, naming the setting
in_snd sh -c "echo 1 > /sys/class/net/$VS/queues/tx-1/xps_cpus"
cls shape del dev "$VS"
# (ip netns exec: a sysfs of this namespace, which XPS is read from)
out=$(in_snd "$CLASSIFIER" --bpffs "$BPFFS" shape dev "$VS" queues all 2>&1) &&
	fail "shaped with XPS set"
echo "$out" | grep -q "XPS is on (xps_cpus of tx-1 is 0*1)" || fail "XPS: $out"
[ "$(tc -n "$NS_S" qdisc show dev "$VS")" = "$found" ] ||
	fail "refused with XPS, yet the qdiscs changed"
in_snd sh -c "echo 0 > /sys/class/net/$VS/queues/tx-1/xps_cpus"
cls shape dev "$VS" queues all
# a child shares its parent's queue
cls class add 1:30 name sub rate 5mbit parent cust3 prio 2 leaf bfifo
tc -n "$NS_S" class show dev "$VS" classid 4:30 |
	grep -q "parent 4:13 leaf [0-9a-f]*: prio 2 rate 5Mbit" ||
	fail "child 4:30: $(tc -n "$NS_S" class show dev "$VS" classid 4:30)"
tc -n "$NS_S" qdisc show dev "$VS" | grep -q "^qdisc bfifo .* parent 4:30" ||
	fail "no bfifo leaf under 4:30"
# refused, in one line, changing nothing
refused()
{
	local want=$1 out
	shift
	if out=$(cls "$@" 2>&1); then
		fail "$* was not refused"
	fi
	# under nsenter sysfs shows another namespace: said, not an error
	out=$(echo "$out" | grep -v "XPS cannot be read here")
	[ "$(echo "$out" | wc -l)" = 1 ] || fail "$*: more than a line: $out"
	echo "$out" | grep -q -- "$want" || fail "$*: $out"
}
before=$(tc -n "$NS_S" class show dev "$VS" | sort)
refused "ceil must be at least the rate" class add 1:40 rate 10mbit ceil 5mbit
refused "parent .* is not a shaping class" class add 1:40 rate 1mbit parent default
refused "is the parent of shaping classes" class del cust3
refused "is the parent of shaping classes" class set cust3 rate none
refused "prio must be 0-7" class add 1:40 rate 1mbit prio 8
refused "minors 0-2 are the HTB's own" class add 1:2 rate 1mbit
if ! tc qdisc add dev lo root fq_codel 2>/dev/null; then
	refused "this kernel has no fq_codel qdisc" class add 1:40 rate 1mbit leaf fq_codel
else
	tc qdisc del dev lo root
fi
refused "queues" shape dev "$VS" queues 9
refused "a class shares its parent's queue (3), not queue 1" class add 1:40 rate 1mbit parent cust3 queue 1
refused "queue 5: the shaped devices have 4 queues" class add 1:40 rate 1mbit queue 5
refused "is shaped with 4 queues" shape dev "$VS" queues 2
expect_eq "the tree after refusals" "$(tc -n "$NS_S" class show dev "$VS" | sort)" "$before"

# unshaping a class deletes its HTB class; deleting it too
cls class del sub
cls class set cust4 rate none
tc -n "$NS_S" class show dev "$VS" | grep -q " 1:20 " && fail "1:20 left"
cls class del cust2
tc -n "$NS_S" class show dev "$VS" | grep -q " 3:12 " && fail "3:12 left"

# --- one HTB: rates and the default class --------------------------------
cls shape del dev "$VS"
expect_eq "qdiscs after shape del" "$(tc -n "$NS_S" qdisc show dev "$VS")" "$found"
for c in cust0 cust1 cust3 cust4; do
	cls class del "$c"
done
cls shape dev "$VS"
tc -n "$NS_S" qdisc show dev "$VS" | grep -q "^qdisc htb 1: root" ||
	fail "no HTB root: $(tc -n "$NS_S" qdisc show dev "$VS")"
cls class add 1:10 name web rate 10mbit
cls route add 198.51.100.0/24 class web
cls class add 1:20 name bulk rate 100mbit
cls route add 203.0.113.0/24 class bulk
POLICE_CLASS=web
for rate in 10 50 200; do
	bps=$((rate * 125000))
	cls class set web rate "${rate}mbit"
	over0=$(htb_overlimits 1:10)
	# what the senders offer is held back by the queue (their sockets
	# block): HTB's overlimits say the class was kept to its rate
	read -r got _ < <(police_udp $bps 3)
	log "rate ${rate}mbit: delivered $got B/s, $(($(htb_overlimits 1:10) - over0)) overlimits"
	[ $(($(htb_overlimits 1:10) - over0)) -gt 0 ] ||
		fail "${rate}mbit: the class never went over its rate"
	[ "$got" -ge $((bps * 95 / 100)) ] && [ "$got" -le $((bps * 105 / 100)) ] ||
		fail "rate ${rate}mbit: delivered $got B/s for $bps: more than 5 % off"
done

# each class's packets in its HTB class, only unrouted ones in default
sleep 0.5
base_web=$(htb_pkts 1:10)
base_bulk=$(htb_pkts 1:20)
base_dflt=$(htb_pkts 1:2)
send "$WEB4" 300
send "$BULK4" 200
send "$DFLT4" 100
expect_eq "web's HTB class" $(($(htb_pkts 1:10) - base_web)) 300
expect_eq "bulk's HTB class" $(($(htb_pkts 1:20) - base_bulk)) 200
expect_eq "the default class" $(($(htb_pkts 1:2) - base_dflt)) 100

# --- someone else's root, replace, and leaving the device as found ------
cls shape del dev "$VS"
tc -n "$NS_S" qdisc add dev "$VS" root handle 5: htb default 1
refused "root qdisc (htb) is someone else's" shape dev "$VS"
tc -n "$NS_S" qdisc show dev "$VS" | grep -q "^qdisc htb 5: root" ||
	fail "the foreign root was touched"
cls shape dev "$VS" replace
cls status | grep -q "replaced the root qdisc there" || fail "status: replaced"
tc -n "$NS_S" class show dev "$VS" classid 1:10 | grep -q "rate 200Mbit" ||
	fail "the classes not in the replacing tree"
cls detach dev "$VS"
expect_eq "qdiscs after detach" "$(tc -n "$NS_S" qdisc show dev "$VS")" "$found"
cls attach dev "$VS"
cls shape dev "$VS"
cls purge
expect_eq "qdiscs after purge" "$(tc -n "$NS_S" qdisc show dev "$VS")" "$found"
