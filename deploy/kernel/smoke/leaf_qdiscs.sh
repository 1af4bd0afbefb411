#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest smoke (guest-run.sh; needs sch_htb, sch_fq_codel, sch_cake): the
# leaf qdiscs issue 21's shaping classes offer attach under HTB classes and
# carry traffic there: HTB 1: on a veth, 1:10 with fq_codel, 1:20 with
# cake, 1:30 with pfifo, u32 filters by source port, UDP into each (iperf3
# clients on ports 5010, 5020, 5030).
#
#   guest-run.sh [--kernel K] deploy/kernel/smoke/leaf_qdiscs.sh
. "$(dirname "$0")/lib.sh"

smoke_pair snd a0 10.78.0.1 rcv b0 10.78.0.2
t() { nsx snd tc "$@"; }
t qdisc add dev a0 root handle 1: htb default 99
t class add dev a0 parent 1: classid 1:1 htb rate 100mbit
t class add dev a0 parent 1:1 classid 1:99 htb rate 10mbit
leaves="10:fq_codel 20:cake 30:pfifo"
for l in $leaves; do
	m=${l%%:*}
	t class add dev a0 parent 1:1 classid 1:$m htb rate 20mbit ceil 40mbit
	case ${l#*:} in
	cake) t qdisc add dev a0 parent 1:$m handle $m: cake bandwidth 20mbit besteffort ;;
	*) t qdisc add dev a0 parent 1:$m handle $m: "${l#*:}" ;;
	esac
	t filter add dev a0 parent 1: protocol ip prio 1 u32 \
		match ip sport $((5000 + m)) 0xffff flowid 1:$m
done

nsx rcv iperf3 -s -D -p 5201 >/dev/null
wait_listen rcv 5201
for l in $leaves; do
	m=${l%%:*}
	nsx snd iperf3 -u -b 5M -l 1200 -t 2 -p 5201 --cport $((5000 + m)) \
		-c 10.78.0.2 -J > "/tmp/leaf-$m.json"
done
t qdisc show dev a0 | sed 's/^/# /'

for l in $leaves; do
	m=${l%%:*}
	k=${l#*:}
	check "htb_leaf_$k" bash -c "
		sent=\$(jq '.end.sum.packets' /tmp/leaf-$m.json)
		q=\$(nsenter --net=/run/netns/snd tc -j -s qdisc show dev a0 |
			jq '[.[] | select(.kind == \"$k\" and .parent == \"1:$m\") | .packets] | first // -1')
		c=\$(nsenter --net=/run/netns/snd tc -s class show dev a0 classid 1:$m |
			awk '/Sent/ { print \$4; exit }')
		[ \"\$sent\" -gt 100 ] && [ \"\$q\" -ge \"\$sent\" ] && [ \"\$c\" -ge \"\$q\" ] ||
			{ echo \"$k under 1:$m: iperf3 sent \$sent datagrams from port 50$m, the leaf saw \$q, the class \$c\"; exit 1; }
		echo \"$k under HTB 1:$m: \$q packets of the \$sent iperf3 sent\""
done
smoke_done
