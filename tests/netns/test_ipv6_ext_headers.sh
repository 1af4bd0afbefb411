#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# IPv6 datagrams carrying nine extension headers (one more than older
# builds walked: they passed such packets unclassified) get their class's
# verdict: a drop class drops them at tc egress by destination and at XDP
# ingress by source, so the UDP socket behind the drop receives none,
# while the same datagrams to a class that passes reach their socket (the
# receiving kernel delivers them) and are counted in that class.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=20
X=9

# ext_reason_pkts: packets counted unclassified for an extension chain.
ext_reason_pkts()
{
	"$@" -j stats | jq '.unclassified.ext_hdr_limit.packets +
		.unclassified.truncated.packets + .unclassified.malformed.packets'
}

setup_pair
add_classes
add_routes
cls attach dev "$VS"

peer_start drop "$NS_R" udp "$DROP6" "$PORT"
peer_start web "$NS_R" udp "$WEB6" "$PORT"
snapshot
send "$DROP6" $N -x $X
send "$WEB6" $N -x $X
peer_stop drop
peer_stop web
expect_eq "datagrams at $DROP6 (blackhole)" "$(peer_out drop)" 0
expect_eq "datagrams at $WEB6 (web)" "$(peer_out web)" $N
expect_eq "classifier blackhole" "$(cls_delta blackhole)" $N
expect_eq "classifier web" "$(cls_delta web)" $N
expect_eq "unclassified for their headers" "$(ext_reason_pkts cls)" 0

# By source at XDP ingress: the receiver drops one sender's datagrams.
cls detach dev "$VS"
ip -n "$NS_S" addr add "$BAD6/128" dev "$VS" nodad
ip -n "$NS_S" addr add "$GOOD6/128" dev "$VS" nodad
rcv_source_classes
cls_rcv attach dev "$VR" xdp
peer_start bad "$NS_R" udp "$WEB6" "$PORT"
send "$WEB6" $N -x $X -s "$BAD6"
peer_stop bad
expect_eq "datagrams from $BAD6 (blocked)" "$(peer_out bad)" 0
peer_start good "$NS_R" udp "$WEB6" "$PORT"
send "$WEB6" $N -x $X -s "$GOOD6"
peer_stop good
expect_eq "datagrams from $GOOD6 (friends)" "$(peer_out good)" $N
expect_eq "XDP blocked" "$(stat_pkts_rcv blocked)" $N
expect_eq "XDP friends" "$(stat_pkts_rcv friends)" $N
expect_eq "XDP unclassified for their headers" "$(ext_reason_pkts cls_rcv)" 0
