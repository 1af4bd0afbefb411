#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Steering to CPUs on a router, with real UDP.  The sender's namespace
# is the router: it forwards what a source namespace sends it (veth
# steer-in, where cls_steer runs in native XDP) out of its 4-queue veth,
# shaped by `classifier shape` (mq + one HTB per queue), with tc egress
# attached there.  Classes in queues 0-3; `steer set cpus 2` gives
# queues 0 and 2 to CPU 0, 1 and 3 to CPU 1.  The source sends from CPU
# 0, then from CPU 1: tc egress counts each class on its queue's CPU
# whichever CPU received it, each lands in its queue's HTB class, and
# steer list counts what was steered (by receiving CPU) and what was
# passed.  A change of the map takes effect at the next packet; a CPU
# past the machine's is refused in one line, changing nothing; detach
# of the steering leaves the egress attachment.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=40
VETH_QUEUES=4
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || fail "steering needs 2 CPUs, this machine has $NCPU"
setup_pair
NS_EXTRA="cls-$$-src"
ip netns add "$NS_EXTRA"
ip -n "$NS_EXTRA" link set lo up
ip netns exec "$NS_EXTRA" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
	net.ipv6.conf.default.accept_dad=0
ip link add steer-src netns "$NS_EXTRA" type veth peer name steer-in \
	netns "$NS_S"
ip -n "$NS_EXTRA" addr add 10.199.0.1/24 dev steer-src
ip -n "$NS_EXTRA" addr add fd00:199::1/64 dev steer-src nodad
ip -n "$NS_S" addr add 10.199.0.2/24 dev steer-in
ip -n "$NS_S" addr add fd00:199::2/64 dev steer-in nodad
ip -n "$NS_EXTRA" link set steer-src up
ip -n "$NS_S" link set steer-in up
ip -n "$NS_EXTRA" route add default via 10.199.0.2
ip -n "$NS_EXTRA" -6 route add default via fd00:199::2
mac_in=$(ip -n "$NS_S" -br link show steer-in | awk '{print $3}')
ip -n "$NS_EXTRA" neigh replace 10.199.0.2 lladdr "$mac_in" dev steer-src nud permanent
ip -n "$NS_EXTRA" neigh replace fd00:199::2 lladdr "$mac_in" dev steer-src nud permanent
ip netns exec "$NS_S" sysctl -qw net.ipv4.ip_forward=1 \
	net.ipv6.conf.all.forwarding=1
ip -n "$NS_R" route add 10.199.0.0/24 via 10.200.0.2 2>/dev/null ||
	ip -n "$NS_R" route add 10.199.0.0/24 via 10.200.0.1
for _ in $(seq 50); do
	ip -n "$NS_S" link show steer-in | grep -q LOWER_UP && break
	sleep 0.1
done

# from CPU DST COUNT: COUNT datagrams from the source namespace, sent
# (and so received by steer-in's XDP) on CPU.
from()
{
	local got
	got=$(ip netns exec "$NS_EXTRA" taskset -c "$1" "$UDPSEND" -i 50 \
		-c "$3" "$2" "$PORT") || fail "udpsend to $2 failed after $got"
	[ "$got" = "$3" ] || fail "udpsend to $2 sent $got, not $3"
}

# on_cpu NAME CPU: packets tc egress counted for class NAME on CPU.
on_cpu()
{
	cls -j stats per-cpu | jq -r --arg n "$1" --argjson c "$2" \
		'.classes[] | select(.name == $n) | .per_cpu[] |
		 select(.cpu == $c) | .packets'
}

# steered Q [CPU]: packets steered toward queue Q (received on CPU).
steered()
{
	cls -j steer list | jq -r --argjson q "$1" --arg c "${2:-}" \
		'[.queues[] | select(.queue == $q) |
		  if $c == "" then .packets
		  else .per_cpu[] | select(.cpu == ($c | tonumber)) | .packets
		  end] | add // 0'
}

passed() { cls -j steer list | jq -r ".passed.$1.packets"; }

cls shape dev "$VS" queues all
cls class add 1:10 name q0 rate 200mbit queue 0
cls class add 1:11 name q1 rate 200mbit queue 1
cls class add 1:12 name q2 rate 200mbit queue 2
cls class add 1:13 name q3 rate 200mbit queue 3
cls route add "${WEB4%.*}.0/24" class q0
cls route add "${BULK4%.*}.0/24" class q1
cls route add "${DROP4%.*}.0/24" class q2
cls route add 2001:db8:10::/48 class q3
cls attach dev "$VS"
cls attach dev steer-in steer
cls stats on
cls steer set cpus 2

cls steer list | grep -qx "queue 1 cpu 1 steered 0 packets 0 bytes" ||
	fail "steer list: $(cls steer list)"
[ "$(cls steer list | grep -c '^queue')" = 4 ] ||
	fail "steer list: not 4 queues: $(cls steer list)"
cls status | grep -qx "steering: queue 0 cpu 0, queue 1 cpu 1, queue 2 cpu 0, queue 3 cpu 1" ||
	fail "status: $(cls status | grep steering)"
[ "$(cls -j status | jq -c '[.steering[] | .cpu]')" = "[0,1,0,1]" ] ||
	fail "-j status: $(cls -j status | jq -c .steering)"
cls status | grep -q "^attached steer-in steer prog [0-9]* cls_steer build current" ||
	fail "status: $(cls status | grep steer-in)"
[ "$(cls -j status | jq -r '.attached[] | select(.dev == "steer-in") | .hook')" = steer ] ||
	fail "-j status: steer-in is not a steer attachment"

declare -A b
for c in q0 q1 q2 q3 default; do
	for k in 0 1; do
		b[$c$k]=$(on_cpu "$c" "$k")
	done
done
for c in 1:10 2:11 3:12 4:13; do
	b[$c]=$(htb_pkts "$c")
done
b[noq]=$(passed no_queue)
for k in 0 1; do
	from "$k" "$WEB4" $N
	from "$k" "$BULK4" $N
	from "$k" "$DROP4" $N
	from "$k" "$WEB6" $N
	from "$k" "$DFLT4" $N
done
d() { echo $(($(on_cpu "$1" "$2") - b[$1$2])); }
# queues 0 and 2 on CPU 0, 1 and 3 on CPU 1, whoever received them
for c in q0 q2; do
	expect_eq "class $c on CPU 0" "$(d $c 0)" $((2 * N))
	expect_eq "class $c on CPU 1" "$(d $c 1)" 0
done
for c in q1 q3; do
	expect_eq "class $c on CPU 1" "$(d $c 1)" $((2 * N))
	expect_eq "class $c on CPU 0" "$(d $c 0)" 0
done
# the default class has no queue: it stays where it was received
expect_eq "default class on CPU 0" "$(d default 0)" $N
expect_eq "default class on CPU 1" "$(d default 1)" $N
expect_ge "passed, no queue" $(($(passed no_queue) - b[noq])) $((2 * N))
# forwarded into its queue's HTB class
expect_eq "HTB 1:10 (queue 0)" $(($(htb_pkts 1:10) - b[1:10])) $((2 * N))
expect_eq "HTB 2:11 (queue 1)" $(($(htb_pkts 2:11) - b[2:11])) $((2 * N))
expect_eq "HTB 3:12 (queue 2)" $(($(htb_pkts 3:12) - b[3:12])) $((2 * N))
expect_eq "HTB 4:13 (queue 3)" $(($(htb_pkts 4:13) - b[4:13])) $((2 * N))
# counted where they were received and steered
for q in 0 1 2 3; do
	expect_eq "steered toward queue $q, received on CPU 0" "$(steered $q 0)" $N
	expect_eq "steered toward queue $q, received on CPU 1" "$(steered $q 1)" $N
done
expect_eq "passed, redirect failed" "$(passed failed)" 0

# a change takes effect at the next packet
cls steer set queue 0 cpu 1
b0=$(on_cpu q0 1)
from 0 "$WEB4" $N
expect_eq "queue 0 moved to CPU 1" $(($(on_cpu q0 1) - b0)) $N
cls steer set queue 0 cpu none
b0=$(on_cpu q0 0) bn=$(passed no_cpu)
from 0 "$WEB4" $N
expect_eq "queue 0 without a CPU: received on CPU 0, handled there" \
	$(($(on_cpu q0 0) - b0)) $N
expect_eq "passed, no CPU" $(($(passed no_cpu) - bn)) $N
cls steer list | grep -q "^queue 0 cpu none steered" ||
	fail "steer list, queue 0 without a CPU: $(cls steer list | head -1)"

# the class maps grown with steering attached (65 classes and more, room
# for 64 before): the steering link is moved to a program for the new
# room, what it counted is carried, and a class at an index past the
# old room is steered to its queue's CPU
steer_prog() { cls status | sed -n 's/^attached steer-in steer prog \([0-9]*\) .*/\1/p'; }
p0=$(steer_prog) s1=$(steered 1)
[ "$(cls -j status | jq .class_room)" = 64 ] ||
	fail "room before: $(cls -j status | jq .class_room)"
for i in $(seq 60); do
	cls class add "1:$(printf %x $((0x100 + i)))" name "fill$i"
done
cls class add 4:40 name big rate 200mbit queue 3
cls route add "$DROP4/32" class big
[ "$(cls -j status | jq .class_room)" = 128 ] ||
	fail "room after: $(cls -j status | jq .class_room)"
[ "$(steer_prog)" != "$p0" ] || fail "steering still on program $p0"
cls status | grep -q "^attached steer-in steer prog [0-9]* cls_steer build current" ||
	fail "status after growth: $(cls status | grep steer-in)"
expect_eq "steered toward queue 1, carried" "$(steered 1)" "$s1"
b0=$(on_cpu big 1) s3=$(steered 3 0)
from 0 "$DROP4" $N
expect_eq "class big (past the old room) on CPU 1" $(($(on_cpu big 1) - b0)) $N
expect_eq "steered toward queue 3 after growth" $(($(steered 3 0) - s3)) $N

# bad input: one line, nothing changed
before=$(cls steer list)
for args in "queue 1 cpu $NCPU" "queue 4096 cpu 0" "queue 1 cpu x" \
	"queue 1" "cpus 0" "cpus $((NCPU + 1))" "cpus 2 queues 0" "cpu 1"; do
	# shellcheck disable=SC2086
	if out=$(cls steer set $args 2>&1); then
		fail "steer set $args: accepted"
	fi
	[ "$(echo "$out" | wc -l)" = 1 ] ||
		fail "steer set $args: not one line: $out"
	case $out in "classifier: steer set: "*) ;;
	*) fail "steer set $args: $out" ;; esac
done
out=$(cls steer set queue 1 cpu "$NCPU" 2>&1) || true
[ "$out" = "classifier: steer set: cpu $NCPU: this machine has CPUs 0-$((NCPU - 1))" ] ||
	fail "steer set, cpu $NCPU: $out"
expect_eq "steering after bad input" "$(cls steer list)" "$before"
# one XDP program a device: the classifying one is refused beside it
if out=$(cls attach dev steer-in xdp 2>&1); then
	fail "attach xdp beside steer: accepted"
fi
echo "$out" | grep -q "another XDP program is attached there" ||
	fail "attach xdp beside steer: $out"

# detach the steering only: egress stays, nothing is steered any more
cls detach dev steer-in steer
cls status | grep -q "^attached steer-in" && fail "steer-in still attached"
cls status | grep -q "^attached $VS egress" || fail "egress went with steer"
b1=$(on_cpu q1 0)
from 0 "$BULK4" $N
expect_eq "class q1 after detach: on the receiving CPU" $(($(on_cpu q1 0) - b1)) $N
log "ok"
