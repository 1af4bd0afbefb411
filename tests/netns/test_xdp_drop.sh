#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# XDP on the receiver classifies by source: a drop class for one v4 and
# one v6 source prefix drops exactly those senders' packets; the others
# pass and are counted in their classes.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=50
setup_pair
ip -n "$NS_S" addr add "$BAD4/32" dev "$VS"
ip -n "$NS_S" addr add "$GOOD4/32" dev "$VS"
ip -n "$NS_S" addr add "$BAD6/128" dev "$VS" nodad
ip -n "$NS_S" addr add "$GOOD6/128" dev "$VS" nodad
ip -n "$NS_R" route add 198.18.0.0/15 via 10.200.0.1
ip -n "$NS_R" route add 2001:db8::/32 via fd00:200::1
rcv_source_classes
cls_rcv attach dev "$VR" xdp
a=$(cls_rcv -j status | jq -c '.attached[]')
[ "$(echo "$a" | jq -r .hook)" = xdp ] || fail "status shows $a"
rcv_nft_init
rcv_rules_src

send "$WEB4" $N -s "$BAD4"
send "$WEB4" $N -s "$GOOD4"
send "$WEB6" $N -s "$BAD6"
send "$WEB6" $N -s "$GOOD6"
send "$WEB4" $N

expect_eq "XDP blocked" "$(stat_pkts_rcv blocked)" $((2 * N))
expect_eq "XDP friends" "$(stat_pkts_rcv friends)" $((2 * N))
expect_ge "XDP default (10.200.0.1 and noise)" "$(stat_pkts_rcv default)" $N
expect_eq "received from $BAD4" "$(rcv_count "$(counter_name "$BAD4")")" 0
expect_eq "received from $BAD6" "$(rcv_count "$(counter_name "$BAD6")")" 0
expect_eq "received from $GOOD4" "$(rcv_count "$(counter_name "$GOOD4")")" $N
expect_eq "received from $GOOD6" "$(rcv_count "$(counter_name "$GOOD6")")" $N

cls_rcv detach dev "$VR" xdp
[ -z "$(cls_rcv -j status | jq -c '.attached[]')" ] || fail "XDP still attached"
ip -n "$NS_R" -d link show dev "$VR" | grep -q xdp && fail "XDP still on $VR"
send "$WEB4" $N -s "$BAD4"
expect_eq "received from $BAD4 after detach" \
	"$(rcv_count "$(counter_name "$BAD4")")" $N
