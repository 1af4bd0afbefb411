#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# police RATE holds a class to its rate at tc egress: UDP offered at twice
# the rate from two CPUs arrives at the rate (+-2 %), the over-rate
# packets counted as dropped; "over dscp" passes them remarked instead;
# TCP (iperf3, 4 flows) gets within 10 % of the rate.  bench/police.sh
# measures more rates with longer windows.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/police.sh
. "$(dirname "$0")/police.sh"

RATE=10mbit
BPS=1250000
police_setup
cls class set web police "$RATE"
cls class list | grep -q "name web police 10mbit burst 250000b" ||
	fail "class list: $(cls class list | grep web)"

read -r got offered < <(police_udp $BPS 4)
log "police 10mbit: delivered $got B/s, offered $offered B/s"
police_within "$got" "$offered" $BPS "police 10mbit"
dropped=$(cls -j stats | jq '.classes[] | select(.name == "web") |
	.rate.egress.dropped')
[ "$dropped" -gt 0 ] || fail "no packet counted as dropped over the rate"

# A new rate starts with a full bucket: after the flood left it empty,
# a burst within the new bucket (100 frames of its 500 kB) all passes.
cls class set web police 20mbit
cls stats reset
send "$WEB4" 100 -i 0 -l 1472
r=$(cls -j stats | jq -c '.classes[] | select(.name == "web") | .rate.egress')
[ "$(echo "$r" | jq .passed)" = 100 ] && [ "$(echo "$r" | jq .dropped)" = 0 ] ||
	fail "after a rate change: $r, want 100 passed"

# Over the rate, remarked instead of dropped: everything arrives.
cls class set web police "$RATE" over dscp 10
in_rcv nft add counter inet cls_test af11
in_rcv nft add rule inet cls_test input ip daddr "$WEB4" ip dscp af11 \
	counter name af11
cls stats reset
send "$WEB4" 200 -i 0 -l 1472
marked=$(cls -j stats | jq '.classes[] | select(.name == "web") |
	.rate.egress.marked')
af11=$(in_rcv nft -j list counter inet cls_test af11 |
	jq '.nftables[] | select(.counter) | .counter.packets')
[ "$marked" -gt 0 ] || fail "over dscp: no packet counted as marked"
expect_eq "remarked packets that arrived with DSCP 10" "$af11" "$marked"

# TCP, 4 flows, through a policed class.
cls class set web police 100mbit
in_rcv iperf3 -s -B "$WEB4" -1 -D --logfile "$WORK/iperf3.log"
sleep 0.3
bps=$(in_snd iperf3 -c "$WEB4" -P 4 -t 4 -O 1 -J |
	jq '.end.sum_received.bits_per_second | floor')
log "TCP 4 flows at 100mbit: $bps bit/s"
# goodput: at most 1448 of each 1514 bytes the class counts (95.6 %)
[ "$bps" -ge 90000000 ] && [ "$bps" -le 100000000 ] ||
	fail "TCP got $bps bit/s through police 100mbit: not within 10 %"
