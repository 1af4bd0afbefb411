#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# XDP ingress policing by source prefix: a flood from one prefix, offered
# over the rate from two CPUs, is held to its class's rate (+-2 %) while
# another prefix's packets, sent meanwhile, all pass.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/netns/police.sh
. "$(dirname "$0")/police.sh"

BPS=1250000 # 10mbit
FLOOD4=198.18.0.66
GOOD4=198.18.1.77
N=400
setup_pair
ip -n "$NS_S" addr add "$FLOOD4/32" dev "$VS"
ip -n "$NS_S" addr add "$GOOD4/32" dev "$VS"
ip -n "$NS_R" route add 198.18.0.0/15 via 10.200.0.1
cls_rcv class add 1:40 name flood police 10mbit
cls_rcv class add 1:10 name friends
cls_rcv route add 198.18.0.0/24 class flood
cls_rcv route add 198.18.1.0/24 class friends
cls_rcv attach dev "$VR" xdp
rcv_nft_init
rcv_rule flood ip saddr "$FLOOD4" udp dport "$PORT"
rcv_rule friends ip saddr "$GOOD4" udp dport "$PORT"

POLICE_CLASS=flood POLICE_CLI=cls_rcv POLICE_SRC=$FLOOD4
# the other prefix meanwhile: N datagrams, 5 ms apart
ip netns exec "$NS_S" "$UDPSEND" -i 5000 -c $N -l 1472 -s "$GOOD4" \
	"$WEB4" "$PORT" >/dev/null &
good=$!
track_pid $good
read -r got offered < <(police_udp $BPS 4)
wait $good || fail "the other prefix's sender failed"
log "XDP police 10mbit: delivered $got B/s, offered $offered B/s"
police_within "$got" "$offered" $BPS "XDP police 10mbit"
expect_eq "received from $GOOD4 (another prefix)" "$(rcv_count friends)" $N
dropped=$(cls_rcv -j stats | jq '.classes[] | select(.name == "flood") |
	.rate.ingress.dropped')
[ "$dropped" -gt 0 ] || fail "XDP counted no drop over the rate"
