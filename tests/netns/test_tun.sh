#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A tun device carries IP packets with no Ethernet header: classifier
# attaches its programs for such devices, which classify them as on veth.
# Real datagrams leave the sender through tun-snd and reach the receiver
# through tun-rcv (tests/netns/peer copies one into the other, as a VPN
# would):
# - tc egress on tun-snd: a drop class keeps datagrams to its v4 and v6
#   prefixes from ever being read from the tun; a shaped class goes
#   through HTB class 1:10 with its DSCP rewritten.  The attachment is the
#   landed classifier's (its programs read a tun's packets as Ethernet)
#   moved by this build's `upgrade`; then an upgrade from a namespace that
#   cannot see the tun (through the link's pin) keeps its program, attach
#   replaces it in place, and the clsact mode, its upgrade and detach
#   handle it too;
# - XDP ingress on tun-rcv (generic: tun has no native XDP, and attach
#   says so): a drop class by source keeps one sender's datagrams out;
# - `status` names the programs; a device of a link type no program reads
#   is refused in one line, and nothing changes.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"

N=20
VS=tun-snd
VR=tun-rcv

setup_ns
for ns in "$NS_S" "$NS_R"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	ip -n "$ns" link set lo up
done
peer_start pipe "" tun "/run/netns/$NS_S" "$VS" "/run/netns/$NS_R" "$VR"
ip -n "$NS_S" link set "$VS" addrgenmode none up
ip -n "$NS_R" link set "$VR" addrgenmode none up
ip -n "$NS_S" addr add 10.210.0.1/24 dev "$VS"
ip -n "$NS_S" addr add fd00:210::1/64 dev "$VS" nodad
for a in "$BAD4/32" "$GOOD4/32"; do
	ip -n "$NS_S" addr add "$a" dev "$VS"
done
for a in "$BAD6/128" "$GOOD6/128"; do
	ip -n "$NS_S" addr add "$a" dev "$VS" nodad
done
for a in 198.51.100.0/24 192.0.2.0/24; do
	ip -n "$NS_S" route add "$a" dev "$VS"
done
ip -n "$NS_S" -6 route add 2001:db8::/32 dev "$VS"
ip -n "$NS_R" addr add 10.210.0.2/24 dev "$VR"
ip -n "$NS_R" addr add fd00:210::2/64 dev "$VR" nodad
for a in $WEB4 $DROP4; do
	ip -n "$NS_R" addr add "$a/32" dev lo
done
for a in $WEB6 $DROP6; do
	ip -n "$NS_R" addr add "$a/128" dev lo nodad
done
ip -n "$NS_R" route add 198.18.0.0/15 dev "$VR"
ip -n "$NS_R" -6 route add 2001:db8::/32 dev "$VR"

setup_htb
if [ -x "${CLASSIFIER_LANDED:-}" ]; then
	nsenter --net="/run/netns/$NS_S" "$CLASSIFIER_LANDED" --bpffs "$BPFFS" \
		attach dev "$VS"
	cls upgrade
else
	log "no CLASSIFIER_LANDED (make netns builds it): attaching this build"
	cls attach dev "$VS"
fi
add_classes
add_routes
rcv_nft_init
for a in $DROP4 $DROP6 $WEB4 $WEB6; do
	rcv_rule_dst "$a"
done
rcv_rule_dst "$WEB4" ip dscp ef
rcv_rule_dst "$WEB6" ip6 dscp ef

snapshot
for a in $DROP4 $DROP6 $WEB4 $WEB6; do
	send "$a" $N
done
expect_eq "classifier blackhole" "$(cls_delta blackhole)" $((2 * N))
expect_eq "classifier web" "$(cls_delta web)" $((2 * N))
expect_eq "received at $DROP4" "$(rcv_count_dst "$DROP4")" 0
expect_eq "received at $DROP6" "$(rcv_count_dst "$DROP6")" 0
expect_eq "received at $WEB4" "$(rcv_count_dst "$WEB4")" $N
expect_eq "received at $WEB6" "$(rcv_count_dst "$WEB6")" $N
expect_eq "received at $WEB4 as EF" "$(rcv_count_dst "$WEB4" ip dscp ef)" $N
expect_eq "received at $WEB6 as EF" "$(rcv_count_dst "$WEB6" ip6 dscp ef)" $N
expect_eq "HTB 1:10 (web)" "$(htb_delta 1:10)" $((2 * N))
expect_eq "HTB 1:40 (blackhole)" "$(htb_delta 1:40)" 0
# program_on ID_VAR: the program of tun-snd's attachment ("mode name").
program_on()
{
	cls -j status | jq -r ".attached[] | select(.dev == \"$VS\") |
		\"\(.mode) \(.program) \(.prog_id)\""
}
# tcx where the kernel has it (6.6+), else clsact
read -r mode prog id <<< "$(program_on)"
expect_eq "tun-snd egress program" "$prog" cls_egress_l3
case $mode in tcx) how=tcx ;; tc) how=clsact ;; *) fail "mode $mode" ;; esac

# From a namespace without the tun: a link moves through its pin and keeps
# the program it runs (a clsact filter can only move from its namespace).
if [ "$mode" = tcx ]; then
	"$CLASSIFIER" --bpffs "$BPFFS" upgrade
	read -r mode prog new <<< "$(program_on)"
	expect_eq "program after an upgrade from afar" "$mode $prog" \
		"tcx cls_egress_l3"
	[ "$new" != "$id" ] || fail "the upgrade from afar left prog $id"
fi
out=$(cls -v attach dev "$VS" 2>&1)
echo "$out" | grep -q "^classifier: replaced on $VS egress ($how), prog id [0-9]* (packets start with the IP header)$" ||
	fail "attach over attach said: $out"
expect_eq "program after attach over attach" "$(program_on | cut -d' ' -f1-2)" \
	"$mode cls_egress_l3"

# clsact: the filter runs the L3 program too, also after an upgrade.
cls detach dev "$VS"
cls attach dev "$VS" mode tc
cls upgrade
expect_eq "program in clsact mode" "$(program_on | cut -d' ' -f1-2)" \
	"tc cls_egress_l3"
tc -n "$NS_S" filter show dev "$VS" egress | grep -q "cls_egress_l3" ||
	fail "egress filter: $(tc -n "$NS_S" filter show dev "$VS" egress)"
send "$DROP4" $N
send "$WEB4" $N
expect_eq "received at $DROP4 through clsact" "$(rcv_count_dst "$DROP4")" 0
expect_eq "received at $WEB4 through clsact" "$(rcv_count_dst "$WEB4")" $((2 * N))
cls detach dev "$VS"
expect_eq "program after detach" "$(program_on)" ""
[ -z "$(tc -n "$NS_S" filter show dev "$VS" egress)" ] ||
	fail "a filter left on $VS"

# By source at XDP ingress of the receiving tun.
rcv_source_classes
if out=$(cls_rcv attach dev "$VR" xdp 2>&1); then
	fail "native XDP on a tun attached: $out"
fi
expect_eq "native XDP on tun" "$out" \
	"classifier: attach: $VR: driver has no native XDP (try xdp-mode generic)"
cls_rcv attach dev "$VR" xdp xdp-mode generic
rcv_rules_src
send "$WEB4" $N -s "$BAD4"
send "$WEB4" $N -s "$GOOD4"
send "$WEB6" $N -s "$BAD6"
send "$WEB6" $N -s "$GOOD6"
expect_eq "XDP blocked" "$(stat_pkts_rcv blocked)" $((2 * N))
expect_eq "XDP friends" "$(stat_pkts_rcv friends)" $((2 * N))
for s in $BAD4 $BAD6; do
	expect_eq "received from $s" "$(rcv_count "$(counter_name "$s")")" 0
done
for s in $GOOD4 $GOOD6; do
	expect_eq "received from $s" "$(rcv_count "$(counter_name "$s")")" $N
done
expect_eq "tun-rcv XDP program" \
	"$(cls_rcv -j status | jq -r '.attached[] | .program')" cls_ingress_l3

# What left tun-snd, as the far end of the tun read it.
peer_stop pipe
log "read from $VS: $(peer_out pipe | tr '\n' ' ')"
for a in $DROP4 $DROP6; do
	expect_eq "read from $VS for $a" \
		"$(peer_out pipe | awk -v a="$a" '$1 == a { n = $2 } END { print n + 0 }')" 0
done

# A link type no program reads: refused, nothing changed.
"$PEER" tun-type "/run/netns/$NS_S" can0 280
before=$(cls -j status | jq -c .attached)
if out=$(cls attach dev can0 2>&1); then
	fail "attach to a CAN device succeeded: $out"
fi
expect_eq "lines of the refusal" "$(echo "$out" | wc -l)" 1
echo "$out" | grep -q "can0: link type 280 (CAN)" || fail "refusal says: $out"
expect_eq "attachments after the refusal" "$(cls -j status | jq -c .attached)" "$before"
[ ! -e "$BPFFS/classifier/links/egress_can0" ] || fail "a pin for can0"
